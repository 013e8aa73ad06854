import { cleanUntrustedLine, fenceUntrusted, type JsonValue, writeArtifact } from 'dsh-host'
import { type SandboxError, type SandboxResult, ToolCallFailure } from './code-sandbox.js'
import { runCodeInWorker } from './code-runner.js'
import type { InvokeOptions, ToolCallContext, ToolDefinition, ToolInfo, ToolOutcome, ToolResult } from 'dsh-host'

export interface RunCodeSettings {
  timeoutMs: number
  maxTimeoutMs: number
  memoryMb: number
  outputThreshold: number
}

export interface RunCodeHost {
  /** The tools the code may call (everything but run_code). */
  callable(): ToolInfo[]
  invoke(name: string, input: unknown, options: InvokeOptions & { nested: true }): Promise<ToolOutcome>
}

interface NestedCall {
  callId: string
  tool: string
  isError: boolean
  code?: string
  durationMs: number
}

export const RUN_CODE = 'run_code'

/** The PTC transport's one tool: the model writes JavaScript that calls the other tools. */
export interface RunCodeInput {
  code: string
  language?: 'javascript' | 'typescript'
  timeout_ms?: number
}

export function createRunCodeTool(host: RunCodeHost, settings: RunCodeSettings): ToolDefinition<RunCodeInput> {
  return {
    name: RUN_CODE,
    get description() {
      return describeRunCode(host.callable(), settings)
    },
    effects: ['code_exec'],
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', minLength: 1, description: 'JavaScript (or TypeScript) to run. `await tools.NAME(input)` calls a tool; the last expression or a `return` is the result.' },
        language: { type: 'string', enum: ['javascript', 'typescript'], description: 'Default: JavaScript, and code that does not parse as JavaScript is tried as TypeScript. TypeScript types are removed, not checked.' },
        timeout_ms: { type: 'integer', minimum: 100, maximum: settings.maxTimeoutMs, description: `Wall-clock limit for the whole run, tool calls included (default ${settings.timeoutMs}).` },
      },
      required: ['code'],
      additionalProperties: false,
    },
    handler: (input, call) => runCode(host, settings, input, call),
  }
}

async function runCode(host: RunCodeHost, settings: RunCodeSettings, input: RunCodeInput, call: ToolCallContext): Promise<ToolResult> {
  const calls: NestedCall[] = []
  let counter = 0
  const callable = host.callable()
  const result = await runCodeInWorker({
    code: input.code,
    language: input.language,
    timeoutMs: input.timeout_ms ?? settings.timeoutMs,
    memoryBytes: settings.memoryMb * 1024 * 1024,
    signal: call.signal,
    toolNames: callable.map((tool) => tool.name),
    callTool: async (tool, toolInput) => {
      const callId = `${call.callId}:code:${++counter}`
      const started = Date.now()
      await call.session?.append('tool/code-dispatch-start', { callId, parentCallId: call.callId, tool })
      const outcome = await host.invoke(tool, toolInput, { session: call.session, signal: call.signal, callId, nested: true })
      const record: NestedCall = { callId, tool, isError: outcome.isError, ...(outcome.error ? { code: outcome.error.code } : {}), durationMs: Date.now() - started }
      calls.push(record)
      await call.session?.append('tool/code-dispatch', { ...record, parentCallId: call.callId, ...(outcome.error ? { message: outcome.error.message } : {}) })
      if (outcome.isError) throw new ToolCallFailure(outcome.error?.code ?? 'TOOL_ERROR', outcome.error?.message ?? outcome.content)
      return outcome.structured
    },
  })

  const structured = {
    result: (result.value ?? null) as JsonValue,
    logs: result.logs,
    calls: calls as unknown as JsonValue,
    ...(result.error ? { error: JSON.parse(JSON.stringify(result.error)) as JsonValue } : {}),
  }
  let content = renderRunCode(result, calls)
  if (content.length > settings.outputThreshold) {
    const artifact = await writeArtifact(content, { session: call.session, stem: `run-code-${call.callId}`, extension: 'txt' })
    content = [
      content.slice(0, 2000),
      '',
      `[The complete output is ${content.length} characters, more than the ${settings.outputThreshold} shown here at most. ` +
        `It is saved whole at ${artifact.path} (${artifact.bytes} bytes, sha256 ${artifact.sha256}). Only the first 2000 characters are above.]`,
    ].join('\n')
  }
  if (!result.error) return { content, structured }
  const code = result.error.kind === 'timeout' ? 'CODE_TIMEOUT'
    : result.error.kind === 'memory' || result.error.kind === 'output' ? 'CODE_RESOURCE_LIMIT'
    : result.error.kind === 'cancelled' ? 'CODE_CANCELLED'
    : 'CODE_ERROR'
  return { content, structured, isError: true, error: { code, message: describeCodeError(result.error) } }
}

function renderRunCode(result: SandboxResult, calls: NestedCall[]): string {
  const parts: string[] = []
  if (result.error) {
    parts.push(`Error: ${describeCodeError(result.error)}`)
  }
  if (calls.length) {
    parts.push(`Tool calls (${calls.length}):\n` + calls.map((item) => `- ${item.callId} ${item.tool}: ${item.isError ? `error ${item.code}` : 'ok'} (${item.durationMs} ms)`).join('\n'))
  } else {
    parts.push('Tool calls: none')
  }
  // Values and logs may carry page text the code read through the tools: fence them.
  if (result.logs.length) parts.push('Console output:\n' + fenceUntrusted(result.logs.join('\n'), 'run_code console'))
  else parts.push('Console output: none')
  if (!result.error) {
    parts.push(result.value === undefined ? 'Result: undefined' : 'Result (JSON):\n' + fenceUntrusted(JSON.stringify(result.value, null, 2), 'run_code result'))
  }
  return parts.join('\n\n')
}

/**
 * The error's name and message are the code's to set, and the code may have
 * copied them from a page: shown outside the fence, they are cleaned to one
 * line (no control or escape sequences, no invisible characters, no fence
 * markers) and cut visibly when long.
 */
function describeCodeError(error: SandboxError): string {
  const name = cleanUntrustedLine(String(error.name), { maxLength: 200 })
  const message = cleanUntrustedLine(String(error.message), { maxLength: 2000 })
  return `${name}: ${message}${error.line ? ` (line ${error.line})` : ''}`
}

function describeRunCode(callable: ToolInfo[], settings: RunCodeSettings): string {
  const list = callable.map((tool) => `- tools.${tool.name}(input): ${tool.description.split('\n')[0]}\n  input schema: ${JSON.stringify(tool.inputSchema)}`)
  return [
    'Run JavaScript (or TypeScript, whose types are removed) that calls tools, then returns a result. Use it to batch, filter and combine tool calls in one step.',
    'Inside the code, `await tools.NAME(input)` calls a tool and returns its structured output (a tool error is thrown as an Error with `code` and `message`).',
    '`console.log` is captured; the value of the last expression, or an explicit `return`, is the result (JSON).',
    `The code runs isolated: no filesystem, network, process, timers, require or import. Limits: ${settings.timeoutMs} ms by default (timeout_ms up to ${settings.maxTimeoutMs}), ${settings.memoryMb} MB of memory.`,
    list.length ? `Callable tools:\n${list.join('\n')}` : 'No other tools are mounted, so `tools` is empty.',
  ].join('\n')
}
