// A plugin that prints with console.log when it starts and before every tool call:
// the host must keep that off stdout, which carries JSON documents and MCP messages.
export const name = 'test-noisy'

export function apply(ctx) {
  console.log('noisy plugin says hi')
  ctx.on('tools/pre-execute', () => {
    console.log('noisy pre-execute')
  })
}
