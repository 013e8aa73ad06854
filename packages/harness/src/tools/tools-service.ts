import { randomBytes } from 'node:crypto'
import { type Context, Service } from 'cordis'
import { findNonJson } from '../json-value.js'
import { CodedError, type InvokeOptions, type JsonValue, RUN_CODE, TOOLS_REGISTERED, type ToolDefinition, type ToolInfo, type ToolOutcome, type ToolResult, type ToolsService as ToolsContract } from 'dsh-host'
import type { ValidateFunction } from 'ajv'
import { checkInputSchema, compileInputSchema, describeInputErrors } from './validate-input.js'
import { DEFAULT_INPUT_LIMITS, describeInputRefusal, inspectInput, recordInput } from './input-record.js'

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/

interface Registered {
  definition: ToolDefinition
  /** Compiled on the first call (see validate-input.ts). */
  validator?: Promise<ValidateFunction>
}

export interface ToolsConfig {
  /** `native`: every tool with its own schema. `ptc`: the model sees run_code (dsh-run-code) and calls the others from its code. */
  mode: 'native' | 'ptc'
  /** Deepest nesting of objects and arrays in a tool input (default 64). */
  inputMaxDepth?: number
  /** Largest tool input, in UTF-8 bytes of its JSON text (default 1 MiB). */
  inputMaxBytes?: number
}

/**
 * `ctx.tools`: the tool registry and the one invocation path every caller
 * (the CLI, MCP, code) goes through: validate, ask `tools/pre-execute`, run,
 * record the call and its result in the session.
 */
export class ToolsService extends Service<ToolsConfig> implements ToolsContract {
  private readonly registry = new Map<string, Registered>()
  /** Tools the host took off the roster, with why (dsh mcp: a tool whose provider is missing). */
  private readonly withheld = new Map<string, string>()

  constructor(ctx: Context, config: ToolsConfig) {
    super(ctx, 'tools', true)
    this.config = config
  }

  /** Registers a tool for as long as the calling plugin lives. */
  register(definition: ToolDefinition): () => void {
    const { name } = definition ?? {}
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      throw new TypeError(`"${String(name)}" is not a tool name: use lower-case letters, digits and underscores, starting with a letter.`)
    }
    if (typeof definition.description !== 'string' || !definition.description.trim()) {
      throw new TypeError(`Tool ${name} needs a description.`)
    }
    if (typeof definition.handler !== 'function') throw new TypeError(`Tool ${name} needs a handler function.`)
    if (this.registry.has(name)) throw new TypeError(`A tool named ${name} is already registered.`)
    checkInputSchema(name, definition.inputSchema)
    const entry: Registered = { definition }
    return this.ctx.effect(() => {
      this.registry.set(name, entry)
      this.ctx.emit(TOOLS_REGISTERED, toInfo(definition))
      return () => {
        if (this.registry.get(name) === entry) this.registry.delete(name)
      }
    })
  }

  has(name: string): boolean {
    return this.registry.has(name) && !this.withheld.has(name)
  }

  /**
   * Takes a registered tool off the roster and off run_code's list: a call
   * to it is refused with TOOL_UNAVAILABLE and `reason`. For a host that must
   * not offer a tool that cannot work (dsh mcp, when its provider is missing).
   */
  withhold(name: string, reason: string): void {
    this.withheld.set(name, reason)
  }

  /** Every registered tool, by name. */
  list(options: { except?: string } = {}): ToolInfo[] {
    return [...this.registry.values()]
      .filter(({ definition }) => definition.name !== options.except && !this.withheld.has(definition.name))
      .map(({ definition }) => toInfo(definition))
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  /** The tools the model is shown: each tool (native), or run_code alone (ptc). */
  roster(): ToolInfo[] {
    const all = this.list()
    return this.config.mode === 'ptc' ? all.filter((tool) => tool.name === RUN_CODE) : all
  }

  /** Invokes a tool as the model would. Never throws for the tool's own failures: they are outcomes. */
  async invoke(name: string, input: unknown, options: InvokeOptions = {}): Promise<ToolOutcome> {
    const callId = options.callId ?? `call_${randomBytes(6).toString('hex')}`
    const session = options.session
    const signal = options.signal ?? new AbortController().signal
    const started = Date.now()
    // A call made from run_code's code is an audit record: the model saw run_code, not this call.
    const visibility = options.nested ? 'log' : 'surface'
    // Checked before anything else reads it: the walk has no recursion, and a refused input is never serialised whole.
    const inspection = inspectInput(input, { maxDepth: this.config.inputMaxDepth ?? DEFAULT_INPUT_LIMITS.maxDepth, maxBytes: this.config.inputMaxBytes ?? DEFAULT_INPUT_LIMITS.maxBytes })
    const entry = this.registry.get(name)
    const refused = inspection.problem ? failure('INVALID_ARGUMENT', describeInputRefusal(name, inspection)) : await this.check(name, entry, input, options)
    // Validated first, then logged once (a call from code too): the input whole when small, else its size, hash and a preview.
    await session?.append('tool/call', {
      callId,
      tool: name,
      ...recordInput(input, inspection),
      ...(refused?.error ? { refused: { code: refused.error.code, message: refused.error.message } } : {}),
    }, { visibility })

    const finish = async (result: ToolResult): Promise<ToolOutcome> => {
      const outcome: ToolOutcome = {
        callId,
        tool: name,
        content: result.content,
        structured: result.structured ?? null,
        isError: !!result.isError,
        ...(result.error ? { error: result.error } : {}),
        ...(result.untrusted?.length && result.structured !== undefined ? { untrusted: [...result.untrusted] } : {}),
      }
      const structuredProblem = findNonJson(outcome.structured, 'structured')
      if (structuredProblem) {
        return finish(await this.bug(name, callId, new TypeError(`Tool ${name} returned structured output that is not JSON: ${structuredProblem}`), session))
      }
      await session?.append('tool/result', { ...outcome, durationMs: Date.now() - started } as unknown as JsonValue, { visibility })
      return outcome
    }

    if (refused) return finish(refused)
    const { definition } = entry as Registered // check() refuses a name with no entry
    const refusal = await this.ctx.serial('tools/pre-execute', { tool: toInfo(definition), input: input as JsonValue, callId, session })
    if (refusal) {
      return finish(failure('TOOL_REFUSED', `The call to ${name} was refused by policy: ${refusal}`))
    }
    if (signal.aborted) {
      return finish(failure('WEB_ABORTED', `The call to ${name} was cancelled before it started.`))
    }
    try {
      const result = await definition.handler(input, { callId, signal, session })
      return finish(result)
    } catch (error) {
      if (CodedError.is(error)) return finish(failure(error.code, error.message))
      return finish(await this.bug(name, callId, error, session))
    }
  }

  /** The refusals that need no more than the name and a JSON input within the limits; undefined when the call may go ahead. */
  private async check(name: string, entry: Registered | undefined, input: unknown, options: InvokeOptions): Promise<ToolResult | undefined> {
    const withheld = this.withheld.get(name)
    if (withheld) return failure('TOOL_UNAVAILABLE', `The tool ${name} is not available here: ${withheld}.`)
    if (!entry) {
      const known = this.list().map((tool) => tool.name)
      return failure('TOOL_NOT_FOUND', `There is no tool named "${name}". Available tools: ${known.join(', ') || 'none'}.`)
    }
    if (this.config.mode === 'ptc' && !options.nested && name !== RUN_CODE) {
      return failure('TOOL_NOT_EXPOSED', `In PTC mode the model sees only run_code; call ${name} from its code: \`await tools.${name}({ ... })\`.`)
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return failure('INVALID_ARGUMENT', `The input of ${name} must be a JSON object of arguments.`)
    }
    let validate: ValidateFunction
    try {
      validate = await (entry.validator ??= compileInputSchema(name, entry.definition.inputSchema))
    } catch (error) {
      return failure('INTERNAL_ERROR', `The tool ${name} cannot be called: ${(error as Error).message} (a bug in the plugin that registers it, not a problem with your input).`)
    }
    if (!validate(input)) {
      const problems = describeInputErrors(entry.definition.inputSchema, validate.errors ?? [])
      return failure('INVALID_ARGUMENT', `Invalid input for ${name}: ${problems.join('; ')}.`)
    }
    return undefined
  }

  /** Anything but a CodedError is a bug: the stack goes to the log, the model gets a plain notice. */
  private async bug(name: string, callId: string, error: unknown, session: InvokeOptions['session']): Promise<ToolResult> {
    const err = error instanceof Error ? error : new Error(String(error))
    await session?.append('tool/error', { callId, tool: name, name: err.name, message: err.message, stack: err.stack ?? null })
    if (!session) process.emitWarning(`Tool ${name} failed with an internal error: ${err.stack ?? err.message}`)
    return failure('INTERNAL_ERROR', `The tool ${name} failed with an internal error (a bug, not a problem with your input).${session ? ` Details are in session ${session.id}.` : ''}`)
  }
}

function failure(code: string, message: string): ToolResult {
  return { content: `Error [${code}]: ${message}`, isError: true, error: { code, message } }
}

function toInfo(definition: ToolDefinition): ToolInfo {
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    effects: [...(definition.effects ?? [])],
    ...(definition.networkScope ? { networkScope: { ...definition.networkScope } } : {}),
  }
}
