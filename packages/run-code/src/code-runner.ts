import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { type JsonValue, startModuleWorker, workerModuleBeside } from 'dsh-host'
import { compileInterpreter, type WasmModule } from './code-memory.js'
import { type SandboxError, type SandboxLimits, stopError, ToolCallFailure } from './code-sandbox.js'
import { type CodeLanguage, CodeSyntaxError, prepareCode } from './code-transform.js'
import type { HostMessage, WorkerJob, WorkerMessage } from './code-worker.js'

/** Time the worker gets past the deadline to stop itself before it is ended from outside. */
const GRACE_MS = 1000

export interface RunnerOptions extends SandboxLimits {
  code: string
  /** Without it, code that is not JavaScript is tried as TypeScript. */
  language?: CodeLanguage
  signal: AbortSignal
  toolNames: string[]
  /** Runs one tool call for the code; resolves to the JSON text of its structured output, rejects (ToolCallFailure) for an error the code sees. */
  callTool(name: string, input: JsonValue): Promise<string>
}

export interface RunnerResult {
  logs: string[]
  /** Absent when the code's value was undefined or the run failed. */
  value?: JsonValue
  notes: string[]
  error?: SandboxError
  memoryBytes?: number
}

/**
 * The worker's own V8 heap holds console lines, tool inputs and outputs in
 * transit, and the result's JSON text while it is handed over (a few copies
 * of it at most). The interpreter's heap is not in it: that is WebAssembly
 * memory, bounded by its own maximum.
 */
export function workerHeapMb(maxResultBytes: number): number {
  return 32 + Math.ceil((3 * maxResultBytes) / 1048576)
}

/** The worker's module: the compiled one beside this file, or its TypeScript source when this file runs under tsx. */
export const CODE_WORKER_MODULE = workerModuleBeside(import.meta.url, './code-worker')

let compiled: Promise<WasmModule | undefined> | undefined
/** The interpreter's WebAssembly, compiled once per process and shared with every worker (V8 shares the machine code). */
function interpreterModule(): Promise<WasmModule | undefined> {
  compiled ??= (async () => {
    try {
      const fromQuickJS = createRequire(createRequire(import.meta.url).resolve('quickjs-emscripten'))
      return await compileInterpreter(await readFile(fromQuickJS.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')))
    } catch {
      // Each worker then compiles its own copy: slower, same limits.
      return undefined
    }
  })()
  return compiled
}

/**
 * Runs code in the QuickJS sandbox inside a worker thread. The host stays
 * responsive whatever the code does; cancellation and the deadline end the
 * worker outright; console lines stream out as they are written, so a run
 * that had to be ended still shows what it printed. A worker that dies of
 * its own heap limit ends the run with the memory error, never the host.
 */
export async function runCodeInWorker(options: RunnerOptions): Promise<RunnerResult> {
  let prepared: string
  try {
    prepared = await prepareCode(options.code, options.language)
  } catch (error) {
    if (!(error instanceof CodeSyntaxError)) throw error
    return { logs: [], notes: [], error: { code: 'CODE_ERROR', kind: 'syntax', name: 'SyntaxError', message: error.message, line: error.line } }
  }
  const limits: SandboxLimits = {
    timeoutMs: options.timeoutMs,
    memoryBytes: options.memoryBytes,
    maxResultBytes: options.maxResultBytes,
    maxToolCalls: options.maxToolCalls,
    maxLogChars: options.maxLogChars,
  }
  const wasmModule = await interpreterModule()
  const logs: string[] = []
  if (options.signal.aborted) return { logs, notes: [], error: stopError('cancelled', limits) }
  const job: WorkerJob = { ...limits, prepared, toolNames: options.toolNames, ...(wasmModule ? { wasmModule } : {}) }
  const worker = startModuleWorker(CODE_WORKER_MODULE, {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: workerHeapMb(options.maxResultBytes), maxYoungGenerationSizeMb: 8, stackSizeMb: 4 },
    stdout: true,
    stderr: true,
  })
  // Nothing the worker prints may reach the host's stdout (it carries MCP and --json output).
  worker.stdout.on('data', (chunk) => process.stderr.write(chunk))
  worker.stderr.on('data', (chunk) => process.stderr.write(chunk))
  return new Promise<RunnerResult>((resolve) => {
    let settled = false
    const finish = (result: Omit<RunnerResult, 'logs'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal.removeEventListener('abort', onAbort)
      void worker.terminate()
      resolve({ logs, ...result })
    }
    const end = (kind: 'timeout' | 'cancelled' | 'memory') => finish({ notes: [], error: stopError(kind, limits) })
    const onAbort = () => end('cancelled')
    const timer = setTimeout(() => end('timeout'), options.timeoutMs + GRACE_MS)
    options.signal.addEventListener('abort', onAbort, { once: true })

    worker.on('message', (message: WorkerMessage) => {
      if (settled) return
      switch (message.type) {
        case 'log':
          logs.push(message.line)
          break
        case 'done': {
          const { json, notes = [], error, memoryBytes } = message.result
          if (error || json === undefined) return finish({ notes, error, memoryBytes })
          try {
            finish({ value: JSON.parse(json) as JsonValue, notes, memoryBytes })
          } catch {
            finish({ notes, memoryBytes, error: { code: 'CODE_RESULT_NOT_JSON', kind: 'not-json', name: 'ResultError', message: 'The result could not be read back as JSON (was a built-in such as Array.prototype changed?).' } })
          }
          break
        }
        case 'tool-call':
          callTool(message)
          break
      }
    })
    const callTool = (message: Extract<WorkerMessage, { type: 'tool-call' }>) => {
      let input: JsonValue
      try {
        input = JSON.parse(message.inputJson) as JsonValue
      } catch {
        return reply({ type: 'tool-reply', id: message.id, ok: false, code: 'INVALID_ARGUMENT', message: `The input of tools.${message.name} could not be read as JSON.` })
      }
      options.callTool(message.name, input).then(
        (outputJson) => reply({ type: 'tool-reply', id: message.id, ok: true, outputJson }),
        (error) => reply({
          type: 'tool-reply',
          id: message.id,
          ok: false,
          code: error instanceof ToolCallFailure ? error.code : 'TOOL_ERROR',
          message: String(error?.message ?? error),
        }),
      )
    }
    const reply = (message: HostMessage) => {
      if (!settled) worker.postMessage(message)
    }
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        const memory = stopError('memory', limits)
        return finish({ notes: [], error: { ...memory, message: `${memory.message} (The runner's own heap of ${workerHeapMb(options.maxResultBytes)} MB ran out.)` } })
      }
      finish({ notes: [], error: { code: 'CODE_ERROR', kind: 'exception', name: error.name, message: `The code runner failed: ${error.message}` } })
    })
    worker.on('exit', (code) => {
      if (!settled) finish({ notes: [], error: { code: 'CODE_ERROR', kind: 'exception', name: 'Error', message: `The code runner stopped unexpectedly (exit code ${code}).` } })
    })
  })
}
