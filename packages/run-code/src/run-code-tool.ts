import { cleanUntrustedLine, fenceUntrusted, type JsonValue, limitOutput, RUN_CODE, writeArtifact } from 'dsh-host'
import type { NestedCall } from './code-calls.js'
import type { RunnerResult } from './code-runner.js'
import type { ToolCallContext, ToolDefinition, ToolInfo, ToolResult, ToolsService } from 'dsh-host'

export interface RunCodeSettings {
  timeoutMs: number
  maxTimeoutMs: number
  memoryMb: number
  outputThreshold: number
  /** UTF-8 bytes of the result's JSON text (and of one tool call's input) at most. */
  maxResultBytes?: number
  /** Tool calls one run may make. */
  maxToolCalls?: number
  /** Tool calls one run may have running at once; further calls wait their turn. */
  maxConcurrentCalls?: number
  /** How long a run that ended waits for its cancelled tool calls to end before it reports. */
  cancelGraceMs?: number
}

export const RUN_CODE_DEFAULTS = {
  maxResultBytes: 10 * 1024 * 1024,
  maxToolCalls: 100,
  maxConcurrentCalls: 8,
  cancelGraceMs: 2000,
  maxLogChars: 1_000_000,
} as const

/** What run_code needs of the registry: the tools its code may call, and the one invocation path (each call `nested`). */
export type RunCodeTools = Pick<ToolsService, 'list' | 'invoke'>

/** The tools the code may call: everything but run_code. */
function callable(tools: RunCodeTools): ToolInfo[] {
  return tools.list({ except: RUN_CODE })
}

/** The PTC transport's one tool: the model writes JavaScript that calls the other tools. */
export interface RunCodeInput {
  code: string
  language?: 'javascript' | 'typescript'
  timeout_ms?: number
}

export function createRunCodeTool(tools: RunCodeTools, settings: RunCodeSettings): ToolDefinition<RunCodeInput> {
  return {
    name: RUN_CODE,
    get description() {
      return describeRunCode(callable(tools), settings)
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
    handler: (input, call) => runCode(tools, settings, input, call),
  }
}

async function runCode(tools: RunCodeTools, settings: RunCodeSettings, input: RunCodeInput, call: ToolCallContext): Promise<ToolResult> {
  const limits = { ...RUN_CODE_DEFAULTS, ...definedOnly(settings) }
  // The interpreter (QuickJS), the parser (acorn) and the worker load with the first run, not with every command that boots.
  const [{ NestedCalls }, { runCodeInWorker }] = await Promise.all([import('./code-calls.js'), import('./code-runner.js')])
  const calls = new NestedCalls(tools, call, { maxConcurrent: limits.maxConcurrentCalls, graceMs: limits.cancelGraceMs })
  let result: RunnerResult
  try {
    result = await runCodeInWorker({
      code: input.code,
      language: input.language,
      timeoutMs: input.timeout_ms ?? settings.timeoutMs,
      memoryBytes: settings.memoryMb * 1024 * 1024,
      maxResultBytes: limits.maxResultBytes,
      maxToolCalls: limits.maxToolCalls,
      maxLogChars: limits.maxLogChars,
      signal: call.signal,
      toolNames: callable(tools).map((tool) => tool.name),
      callTool: (tool, toolInput) => calls.call(tool, toolInput),
    })
  } finally {
    // Calls still running are cancelled and their ends recorded before run_code reports.
    await calls.finish()
  }
  const made = calls.list()

  const structured = {
    result: result.value ?? null,
    logs: result.logs,
    calls: made as unknown as JsonValue,
    ...(result.notes.length ? { notes: result.notes } : {}),
    ...(result.error ? { error: JSON.parse(JSON.stringify(result.error)) as JsonValue } : {}),
    ...(result.memoryBytes !== undefined ? { memoryBytes: result.memoryBytes } : {}),
  }
  // The contract's limiter: the head closes the fences it cuts, so the notice (the file, what was cut) is the host's, outside them.
  const limited = await limitOutput(renderRunCode(result, made), {
    threshold: settings.outputThreshold,
    save: (text) => writeArtifact(text, { session: call.session, stem: `run-code-${call.callId}`, extension: 'txt' }),
  })
  const content = limited.content
  if (!result.error) return { content, structured, untrusted: RUN_CODE_UNTRUSTED }
  return { content, structured, untrusted: RUN_CODE_UNTRUSTED, isError: true, error: { code: result.error.code, message: describeCodeError(result.error) } }
}

/** What the code made, which may hold page text it read through the tools: its result, logs, error and the paths of its conversions. */
const RUN_CODE_UNTRUSTED = ['/result', '/logs', '/notes', '/error']

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>
}

/** A note's length shown at most: the converter's paths are cut at 300 characters, so this cuts nothing it writes. */
const NOTE_MAX = 1000

function describeCall(item: NestedCall): string {
  const how = item.outcome === 'ok' ? 'ok'
    : item.outcome === 'error' ? `error ${item.code}`
    : item.settled === false ? 'cancelled when the run ended, and abandoned (it had not stopped)'
    : `cancelled when the run ended${item.code ? ` (${item.code})` : ''}`
  return `- ${item.callId} ${item.tool}: ${how} (${item.durationMs} ms)`
}

function renderRunCode(result: RunnerResult, calls: NestedCall[]): string {
  const parts: string[] = []
  if (result.error) {
    parts.push(`Error [${result.error.code}]: ${describeCodeError(result.error)}`)
  }
  parts.push(calls.length ? `Tool calls (${calls.length}):\n${calls.map(describeCall).join('\n')}` : 'Tool calls: none')
  // Values and logs may carry page text the code read through the tools: fence them.
  if (result.logs.length) parts.push('Console output:\n' + fenceUntrusted(result.logs.join('\n'), 'run_code console'))
  else parts.push('Console output: none')
  if (!result.error) {
    parts.push(result.value === undefined ? 'Result: undefined' : 'Result (JSON):\n' + fenceUntrusted(JSON.stringify(result.value, null, 2), 'run_code result'))
    // A note names a path, and the code may have taken its keys from a page: shown outside the fence, each is one cleaned line.
    if (result.notes.length) parts.push('Converted to fit JSON:\n' + result.notes.map((note) => `- ${cleanUntrustedLine(note, { maxLength: NOTE_MAX })}`).join('\n'))
  }
  return parts.join('\n\n')
}

/**
 * The error's name and message are the code's to set, and the code may have
 * copied them from a page: shown outside the fence, they are cleaned to one
 * line (no control or escape sequences, no invisible characters, no fence
 * markers) and cut visibly when long.
 */
function describeCodeError(error: NonNullable<RunnerResult['error']>): string {
  const name = cleanUntrustedLine(String(error.name), { maxLength: 200 })
  const message = cleanUntrustedLine(String(error.message), { maxLength: 2000 })
  return `${name}: ${message}${error.line ? ` (line ${error.line})` : ''}`
}

function describeRunCode(callable: ToolInfo[], settings: RunCodeSettings): string {
  const limits = { ...RUN_CODE_DEFAULTS, ...definedOnly(settings) }
  const list = callable.map((tool) => `- tools.${tool.name}(input): ${tool.description.split('\n')[0]}\n  input schema: ${JSON.stringify(tool.inputSchema)}`)
  return [
    'Run JavaScript (or TypeScript, whose types are removed) that calls tools, then returns a result. Use it to batch, filter and combine tool calls in one step.',
    'Inside the code, `await tools.NAME(input)` calls a tool and returns its structured output (a tool error is thrown as an Error with `code` and `message`).',
    `\`console.log\` is captured; the value of the last expression, or an explicit \`return\`, is the result, returned as JSON of at most ${formatBytes(limits.maxResultBytes)}: NaN and Infinity become null, a BigInt a string, an Error { name, message }, and undefined properties are left out (each conversion is noted); a function, Symbol, cycle, Map, Set or typed array is refused with its path.`,
    `The code runs isolated: no filesystem, network, process, timers, require or import. Limits: ${settings.timeoutMs} ms by default (timeout_ms up to ${settings.maxTimeoutMs}), ${settings.memoryMb} MB of memory, ${limits.maxToolCalls} tool calls per run (more ends the run with CODE_RESOURCE_LIMIT), ${limits.maxConcurrentCalls} running at once (further calls wait their turn, so Promise.all over many calls works; the wait counts against the run's time). Tool calls still running when the run ends are cancelled.`,
    list.length ? `Callable tools:\n${list.join('\n')}` : 'No other tools are mounted, so `tools` is empty.',
  ].join('\n')
}

function formatBytes(bytes: number): string {
  return bytes % 1048576 === 0 ? `${bytes / 1048576} MB` : `${bytes} bytes`
}
