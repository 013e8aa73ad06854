import { getHeapStatistics } from 'node:v8'
import { parentPort } from 'node:worker_threads'
import { type ConvertInput, type ConvertOutput, convertBody } from './convert-body.js'

/** Messages between the pool and an extraction worker. */
export type ExtractJob = { id: number; type: 'convert'; input: ConvertInput }

export type ExtractReply =
  | { id: number; ok: true; output: ConvertOutput; heapUsed: number }
  | { id: number; ok: false; message: string; heapUsed: number }

parentPort?.on('message', (job: ExtractJob) => {
  let reply: ExtractReply
  try {
    const output = convertBody(job.input)
    reply = { id: job.id, ok: true, output, heapUsed: getHeapStatistics().used_heap_size }
  } catch (error) {
    reply = { id: job.id, ok: false, message: (error as Error)?.message ?? String(error), heapUsed: getHeapStatistics().used_heap_size }
  }
  parentPort!.postMessage(reply)
})
