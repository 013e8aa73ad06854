import { Worker } from 'node:worker_threads'
import { type SandboxOptions, type SandboxResult, stopError, ToolCallFailure } from './code-sandbox.js'
import type { HostMessage, WorkerJob, WorkerMessage } from './code-worker.js'

/** Time the worker gets past the deadline to stop itself before it is ended from outside. */
const GRACE_MS = 1000

/**
 * The worker runs compiled code: from dist/ it is the file beside this one;
 * when this module runs as src/*.ts under tsx (whose loader does not reach
 * worker threads), it is the built copy (the test command builds first).
 */
function workerUrl(): URL {
  if (import.meta.url.endsWith('.ts')) return new URL('../../dist/tools/code-worker.js', import.meta.url)
  return new URL('./code-worker.js', import.meta.url)
}

/**
 * Runs code in the QuickJS sandbox inside a worker thread. The host stays
 * responsive whatever the code does; cancellation and the deadline end the
 * worker outright; console lines stream out as they are written, so a run
 * that had to be ended still shows what it printed.
 */
export function runCodeInWorker(options: SandboxOptions): Promise<SandboxResult> {
  const job: WorkerJob = {
    code: options.code,
    language: options.language,
    timeoutMs: options.timeoutMs,
    memoryBytes: options.memoryBytes,
    toolNames: options.toolNames,
    maxLogChars: options.maxLogChars,
  }
  const memoryMb = Math.ceil(options.memoryBytes / 1048576)
  const worker = new Worker(workerUrl(), {
    workerData: job,
    // The interpreter's heap lives in WebAssembly memory under its own limit;
    // this bounds what the worker's JavaScript side can pile up besides.
    resourceLimits: { maxOldGenerationSizeMb: Math.max(64, memoryMb * 2), maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    stdout: true,
    stderr: true,
  })
  // Nothing the worker prints may reach the host's stdout (it carries MCP and --json output).
  worker.stdout.on('data', (chunk) => process.stderr.write(chunk))
  worker.stderr.on('data', (chunk) => process.stderr.write(chunk))
  const logs: string[] = []
  return new Promise<SandboxResult>((resolve) => {
    let settled = false
    const finish = (result: SandboxResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal.removeEventListener('abort', onAbort)
      void worker.terminate()
      resolve(result)
    }
    const end = (kind: 'timeout' | 'cancelled' | 'memory') => finish({ logs, error: stopError(kind, options) })
    const onAbort = () => end('cancelled')
    const timer = setTimeout(() => end('timeout'), options.timeoutMs + GRACE_MS)
    if (options.signal.aborted) return onAbort()
    options.signal.addEventListener('abort', onAbort, { once: true })

    worker.on('message', (message: WorkerMessage) => {
      switch (message.type) {
        case 'log':
          logs.push(message.line)
          break
        case 'done':
          finish(message.result)
          break
        case 'tool-call':
          options.callTool(message.name, message.input).then(
            (value) => reply({ type: 'tool-reply', id: message.id, ok: true, value }),
            (error) => reply({
              type: 'tool-reply',
              id: message.id,
              ok: false,
              code: error instanceof ToolCallFailure ? error.code : 'TOOL_ERROR',
              message: String(error?.message ?? error),
            }),
          )
          break
      }
    })
    const reply = (message: HostMessage) => {
      if (!settled) worker.postMessage(message)
    }
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') return end('memory')
      finish({ logs, error: { kind: 'exception', name: error.name, message: `The code runner failed: ${error.message}` } })
    })
    worker.on('exit', (code) => {
      if (!settled) finish({ logs, error: { kind: 'exception', name: 'Error', message: `The code runner stopped unexpectedly (exit code ${code}).` } })
    })
  })
}
