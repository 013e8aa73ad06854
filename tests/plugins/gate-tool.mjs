// A tool that holds each call until a file exists, for tests that need calls in flight
// (the test creates the file to let them finish) without timing anything.
import { access } from 'node:fs/promises'
import { WebError } from 'dsh-web'

export const name = 'test-gate-tool'
export const inject = ['tools']

export function apply(ctx) {
  ctx.tools.register({
    name: 'wait_for_file',
    description: 'Waits until the file exists, then says so. Test tool.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1, description: 'The file to wait for.' } },
      required: ['path'],
      additionalProperties: false,
    },
    async handler(input, call) {
      for (;;) {
        if (await access(input.path).then(() => true, () => false)) return { content: `found ${input.path}` }
        if (call.signal.aborted) throw new WebError('WEB_ABORTED', 'The wait was cancelled.')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
  })
}
