// A small tool plugin for the host's tests: echoes its input, or fails on request.
import { Schema } from 'cordis'
import { WebError } from 'dsh-web'

export const name = 'test-echo-tool'
export const inject = ['tools']
export const Config = Schema.object({
  prefix: Schema.string().default('echo'),
  effects: Schema.array(String).default([]),
})

export function apply(ctx, config) {
  ctx.tools.register({
    name: 'echo',
    description: 'Echoes the text back. Test tool.',
    effects: config.effects,
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, description: 'What to echo.' } },
      required: ['text'],
      additionalProperties: false,
    },
    async handler(input, call) {
      if (input.text === 'web-error') throw new WebError('WEB_FETCH_FAILED', 'The test asked for a typed failure.')
      if (input.text === 'bug') throw new Error('kaboom: an untyped failure')
      if (input.text === 'slow') {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 10_000)
          call.signal.addEventListener('abort', () => { clearTimeout(timer); reject(new WebError('WEB_ABORTED', 'cancelled')) }, { once: true })
        })
      }
      return { content: `${config.prefix}: ${input.text}`, structured: { text: input.text, session: call.session?.id ?? null } }
    },
  })
}
