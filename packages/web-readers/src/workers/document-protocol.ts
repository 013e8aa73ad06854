import type { WebErrorCode, WebErrorDetails } from 'dsh-web'
import type { ConvertInput, ConvertOutput } from '../convert/convert-body.js'
import type { EncodedBody } from './extract-worker.js'

/** Messages between DocumentProcesses and a document child (document-child.ts): a job, then its reply, one at a time. */
export type DocumentJob = { input: ConvertInput; encoded?: EncodedBody }

/**
 * `rss`: the child's resident memory in bytes after the document (it reads
 * another only while that is low); `peakRss`: its peak, for diagnostics and
 * the benchmark.
 */
export type DocumentReply =
  | { ok: true; output: ConvertOutput; rss: number; peakRss: number }
  | { ok: false; message: string; code?: WebErrorCode; details?: WebErrorDetails; rss: number; peakRss: number }

/** Sent once, when the child's modules are loaded. */
export type DocumentReady = { ready: true }

/** The line the child's watchdog writes to stderr, followed by the resident bytes it saw, before it kills the child. */
export const MEMORY_CAP_MARK = 'dsh-document-memory-cap-reached rss='
