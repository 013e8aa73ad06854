import { getHeapStatistics } from 'node:v8'
import { parentPort } from 'node:worker_threads'
import { type ExtractInput, extractHtml } from './extract-html.js'

/** Messages between the pool and an extraction worker. */
export interface ExtractJob {
  id: number
  input: ExtractInput
}

export type ExtractReply =
  | { id: number; ok: true; output: ReturnType<typeof extractHtml>; heapUsed: number }
  | { id: number; ok: false; message: string; heapUsed: number }

parentPort?.on('message', (job: ExtractJob) => {
  let reply: ExtractReply
  try {
    reply = { id: job.id, ok: true, output: extractHtml(job.input), heapUsed: getHeapStatistics().used_heap_size }
  } catch (error) {
    reply = { id: job.id, ok: false, message: (error as Error)?.message ?? String(error), heapUsed: getHeapStatistics().used_heap_size }
  }
  parentPort!.postMessage(reply)
})
