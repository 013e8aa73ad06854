// A URL-taking net_read tool for the network policy tests; it never opens a connection.
export const name = 'test-url-tool'
export const inject = { tools: { required: true }, network: { required: false } }

export function apply(ctx) {
  ctx.tools.register({
    name: 'open_url',
    description: 'Pretends to read a URL. Test tool.',
    effects: ['net_read'],
    networkScope: { url: 'url' },
    inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], additionalProperties: false },
    async handler(input) {
      return { content: `would read ${input.url}`, structured: { url: input.url, allowedDomains: ctx.get('network')?.allowedDomains() ?? null } }
    },
  })
}
