import type { JsonValue } from './json.js'
import type { SessionHandle } from './session.js'

/** The JSON Schema subset tools declare: a closed object at the top. */
export interface ToolInputSchema {
  type: 'object'
  properties: Record<string, Record<string, unknown>>
  required?: string[]
  additionalProperties: false
  [keyword: string]: unknown
}

/** What a tool's handler gets besides its input. */
export interface ToolCallContext {
  callId: string
  signal: AbortSignal
  session?: SessionHandle
}

/** An error outcome's code and message. */
export interface ToolErrorInfo {
  code: string
  message: string
}

/** What a handler returns. A thrown `CodedError` becomes an error outcome; anything else thrown is a bug. */
export interface ToolResult {
  /** Text for the model. */
  content: string
  /** The same result as data: what programs (and PTC code) receive. */
  structured?: JsonValue
  isError?: boolean
  error?: ToolErrorInfo
  /**
   * Where `structured` holds text from a page or a provider, as JSON
   * pointers (RFC 6901; each marks the value and all it holds): data outside
   * any fence, which a consumer that shows it to a model must fence or clean
   * (MCP clients get it as `_meta["dsh/untrusted"]`).
   */
  untrusted?: string[]
}

/**
 * Where a `net_read` tool's requests go, as input properties a network
 * policy can read: without it a policy can only let the tool run or refuse it.
 */
export interface NetworkScope {
  /** The input property holding the one http(s) URL the call requests first. */
  url?: string
  /** The input property holding a domain list (see `DomainList`) every request of the call stays within. */
  allowedDomains?: string
}

export interface ToolDefinition<Input = any> {
  /** Lower-case letters, digits and underscores, e.g. web_fetch. */
  name: string
  description: string
  inputSchema: ToolInputSchema
  /** Declared effects, e.g. `net_read`, for policy plugins. */
  effects?: string[]
  /** For `net_read` tools: which input properties say where the call's requests go. */
  networkScope?: NetworkScope
  handler(input: Input, call: ToolCallContext): Promise<ToolResult>
}

/** A tool as the model and the CLI see it. */
export interface ToolInfo {
  name: string
  description: string
  inputSchema: ToolInputSchema
  effects: string[]
  networkScope?: NetworkScope
}

export interface ToolOutcome {
  callId: string
  tool: string
  content: string
  structured: JsonValue
  isError: boolean
  error?: ToolErrorInfo
  /** The handler's `untrusted` pointers into `structured`, when it gave any. */
  untrusted?: string[]
}

export interface InvokeOptions {
  session?: SessionHandle
  signal?: AbortSignal
  /** Given by the caller (e.g. nested calls `<callId>:code:<n>`); otherwise generated. */
  callId?: string
  /**
   * A call made from another tool's code (run_code), not by the model: the
   * host records it as an audit record (`visibility: 'log'`), and in PTC
   * mode lets it reach the tools the model does not see.
   */
  nested?: boolean
}

/** The name of the PTC tool: in PTC mode the host shows the model this one tool, whose code calls the others (dsh-run-code registers it). */
export const RUN_CODE = 'run_code'

/** The argument of the `tools/pre-execute` bail event. */
export interface ToolPreExecute {
  tool: ToolInfo
  input: JsonValue
  callId: string
  session?: SessionHandle
}

/**
 * `ctx.tools`: the tool registry and the one invocation path every caller goes
 * through. `register` is an effect of the calling plugin: the tool disappears
 * when that plugin is disposed.
 */
export interface ToolsService {
  register(definition: ToolDefinition): () => void
  has(name: string): boolean
  /** Every registered tool, by name; `except` leaves one out (run_code lists what its code may call). */
  list(options?: { except?: string }): ToolInfo[]
  /** The tools the model is shown. */
  roster(): ToolInfo[]
  /** Invokes a tool as the model would; the tool's own failures are outcomes, never throws. */
  invoke(name: string, input: unknown, options?: InvokeOptions): Promise<ToolOutcome>
}
