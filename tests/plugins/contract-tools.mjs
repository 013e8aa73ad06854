// A `tools` service written from the contract (dsh-host's ToolsService) and
// nothing of dsh-harness, as a harness builder would write one for their own
// Cordis or Koishi app (docs/host-contract.md shows the same): register, list,
// invoke with the typed-error rule, and the `tools/registered` readiness event.
import { randomBytes } from 'node:crypto'
import { CodedError, TOOLS_REGISTERED } from 'dsh-host'

export const name = 'contract-tools'

class ContractTools {
  constructor(ctx) {
    this.ctx = ctx
    this.tools = new Map()
  }

  register(definition) {
    const info = { name: definition.name, description: definition.description, inputSchema: definition.inputSchema, effects: definition.effects ?? [] }
    this.tools.set(definition.name, definition)
    this.ctx.emit(TOOLS_REGISTERED, info)
    return () => this.tools.delete(definition.name)
  }

  has(name) {
    return this.tools.has(name)
  }

  list() {
    return [...this.tools.values()].map(({ name, description, inputSchema, effects }) => ({ name, description, inputSchema, effects: effects ?? [] }))
  }

  roster() {
    return this.list()
  }

  async invoke(name, input, options = {}) {
    const callId = options.callId ?? `call_${randomBytes(4).toString('hex')}`
    const tool = this.tools.get(name)
    if (!tool) return { callId, tool: name, content: `No tool named ${name}.`, structured: null, isError: true, error: { code: 'TOOL_NOT_FOUND', message: name } }
    try {
      const result = await tool.handler(input, { callId, signal: options.signal ?? new AbortController().signal, session: options.session })
      return { callId, tool: name, content: result.content, structured: result.structured ?? null, isError: !!result.isError, ...(result.error ? { error: result.error } : {}), ...(result.untrusted ? { untrusted: result.untrusted } : {}) }
    } catch (error) {
      if (CodedError.is(error)) return { callId, tool: name, content: `Error [${error.code}]: ${error.message}`, structured: null, isError: true, error: { code: error.code, message: error.message } }
      throw error
    }
  }
}

export function apply(ctx) {
  ctx.set('tools', new ContractTools(ctx))
}
