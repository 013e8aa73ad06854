import { getHeapStatistics } from 'node:v8'
import { parentPort } from 'node:worker_threads'
import type { WebErrorCode, WebErrorDetails } from 'dsh-web'
import { type ConvertInput, type ConvertOutput, convertBody } from '../convert/convert-body.js'
import { inflateBody } from '../convert/decode-body.js'
import { DocumentError } from './document-error.js'

/** A body still in its content encodings, inflated here with its output capped at `maxBytes`. */
export interface EncodedBody {
  encodings: string[]
  maxBytes: number
}

/** Messages between the pool and an extraction worker. */
export type ExtractJob = { id: number; type: 'convert'; input: ConvertInput; encoded?: EncodedBody }

/** A failure carries its WebError code and details when it has them (an encrypted PDF), so the pool rethrows it as it was. */
export type ExtractReply =
  | { id: number; ok: true; output: ConvertOutput; heapUsed: number }
  | { id: number; ok: false; message: string; code?: WebErrorCode; details?: WebErrorDetails; heapUsed: number }

/** Sent once, when the worker's modules are loaded. */
export type ExtractReady = { ready: true }

parentPort?.on('message', (job: ExtractJob) => {
  let reply: ExtractReply
  try {
    const input = job.encoded ? { ...job.input, bytes: inflateBody(job.input.bytes, job.encoded.encodings, job.encoded.maxBytes) } : job.input
    // PDFs never come here: the pool sends them to a document process (document-process.ts).
    const output = convertBody(input)
    reply = { id: job.id, ok: true, output, heapUsed: getHeapStatistics().used_heap_size }
  } catch (error) {
    const coded = error instanceof DocumentError ? { code: error.code, details: error.details } : {}
    reply = { id: job.id, ok: false, message: (error as Error)?.message ?? String(error), ...coded, heapUsed: getHeapStatistics().used_heap_size }
  }
  parentPort!.postMessage(reply)
})

parentPort?.postMessage({ ready: true } satisfies ExtractReady)
