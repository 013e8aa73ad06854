// A tool plugin whose input schema is closed but not valid JSON Schema (a
// type no draft knows): tools compile schemas on a tool's first call, so
// dsh doctor is where this shows before any call fails.
export const name = 'test-bad-schema-tool'
export const inject = ['tools']

export function apply(ctx) {
  ctx.tools.register({
    name: 'bad_schema',
    description: 'A tool whose input schema does not compile. Test tool.',
    effects: [],
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'text-ish' } },
      additionalProperties: false,
    },
    async handler() {
      return { content: 'never reached' }
    },
  })
}
