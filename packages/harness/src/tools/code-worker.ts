/**
 * The worker thread run_code's interpreter lives in, so that a runaway
 * loop blocks this thread, never the host's event loop, and the host can
 * end it at once with `worker.terminate()`.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { runInSandbox, ToolCallFailure, type SandboxOptions } from './code-sandbox.js'

export type WorkerJob = Pick<SandboxOptions, 'code' | 'language' | 'timeoutMs' | 'memoryBytes' | 'toolNames' | 'maxLogChars'>

export type WorkerMessage =
  | { type: 'tool-call'; id: number; name: string; input: unknown }
  | { type: 'log'; line: string }
  | { type: 'done'; result: Awaited<ReturnType<typeof runInSandbox>> }

export type HostMessage = { type: 'tool-reply'; id: number; ok: true; value: unknown } | { type: 'tool-reply'; id: number; ok: false; code: string; message: string }

const port = parentPort!
const job = workerData as WorkerJob
const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()
let counter = 0

port.on('message', (message: HostMessage) => {
  const entry = waiting.get(message.id)
  if (!entry) return
  waiting.delete(message.id)
  if (message.ok) entry.resolve(message.value)
  else entry.reject(new ToolCallFailure(message.code, message.message))
})

const result = await runInSandbox({
  ...job,
  signal: new AbortController().signal,
  onLog: (line) => port.postMessage({ type: 'log', line } satisfies WorkerMessage),
  callTool: (name, input) =>
    new Promise((resolve, reject) => {
      const id = ++counter
      waiting.set(id, { resolve, reject })
      port.postMessage({ type: 'tool-call', id, name, input } satisfies WorkerMessage)
    }),
})
port.postMessage({ type: 'done', result } satisfies WorkerMessage)
port.close()
