import type { JsonValue, SessionHandle } from 'dsh-web'
import type { ToolInputSchema } from './validate-input.js'

/** What a tool's handler gets besides its input. */
export interface ToolCallContext {
  callId: string
  signal: AbortSignal
  session?: SessionHandle
}

export interface ToolError {
  code: string
  message: string
}

/** What a handler returns. A thrown WebError becomes an error outcome; anything else thrown is a bug. */
export interface ToolResult {
  /** Text for the model. */
  content: string
  /** The same result as data: what programs (and PTC code) receive. */
  structured?: JsonValue
  isError?: boolean
  error?: ToolError
}

export interface ToolDefinition<Input = any> {
  /** Lower-case letters, digits and underscores, e.g. web_fetch. */
  name: string
  description: string
  inputSchema: ToolInputSchema
  /** Declared effects, e.g. `net_read`, for policy plugins. */
  effects?: string[]
  handler(input: Input, call: ToolCallContext): Promise<ToolResult>
}

/** A tool as the model and the CLI see it. */
export interface ToolInfo {
  name: string
  description: string
  inputSchema: ToolInputSchema
  effects: string[]
}

export interface ToolOutcome {
  callId: string
  tool: string
  content: string
  structured: JsonValue
  isError: boolean
  error?: ToolError
}

export interface InvokeOptions {
  session?: SessionHandle
  signal?: AbortSignal
  /** Given by the caller (e.g. nested calls `<callId>:code:<n>`); otherwise generated. */
  callId?: string
}

/** The argument of the `tools/pre-execute` bail event. */
export interface ToolPreExecute {
  tool: ToolInfo
  input: JsonValue
  callId: string
  session?: SessionHandle
}
