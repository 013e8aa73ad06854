/**
 * The worker thread run_code's interpreter lives in, so that a runaway
 * loop blocks this thread, never the host's event loop, and the host can
 * end it at once with `worker.terminate()`. One worker serves one run.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { WasmModule } from './code-memory.js'
import { runInSandbox, type SandboxLimits, type SandboxResult, ToolCallFailure } from './code-sandbox.js'

export interface WorkerJob extends SandboxLimits {
  prepared: string
  toolNames: string[]
  wasmModule?: WasmModule
}

export type WorkerMessage =
  | { type: 'tool-call'; id: number; name: string; inputJson: string }
  | { type: 'log'; line: string }
  | { type: 'done'; result: Omit<SandboxResult, 'logs'> }

export type HostMessage = { type: 'tool-reply'; id: number; ok: true; outputJson: string } | { type: 'tool-reply'; id: number; ok: false; code: string; message: string }

const port = parentPort!
const job = workerData as WorkerJob
const waiting = new Map<number, { resolve(value: string): void; reject(error: Error): void }>()
let counter = 0

port.on('message', (message: HostMessage) => {
  const entry = waiting.get(message.id)
  if (!entry) return
  waiting.delete(message.id)
  if (message.ok) entry.resolve(message.outputJson)
  else entry.reject(new ToolCallFailure(message.code, message.message))
})

let result: Omit<SandboxResult, 'logs'>
try {
  // Console lines went out one by one as they were written: they are not sent again.
  const { logs: _logs, ...rest } = await runInSandbox({
    ...job,
    onLog: (line) => port.postMessage({ type: 'log', line } satisfies WorkerMessage),
    callTool: (name, inputJson) =>
      new Promise((resolve, reject) => {
        const id = ++counter
        waiting.set(id, { resolve, reject })
        port.postMessage({ type: 'tool-call', id, name, inputJson } satisfies WorkerMessage)
      }),
  })
  result = rest
} catch (error) {
  const failure = error instanceof Error ? error : new Error(String(error))
  result = { error: { code: 'CODE_ERROR', kind: 'exception', name: failure.name, message: `The code runner failed: ${failure.message}` } }
}
port.postMessage({ type: 'done', result } satisfies WorkerMessage)
port.close()
