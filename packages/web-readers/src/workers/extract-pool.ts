import { availableParallelism } from 'node:os'
import type { Worker, WorkerOptions } from 'node:worker_threads'
import { startModuleWorker, workerModuleBeside } from 'dsh-host'
import { WebError, abortError, redactUrl } from 'dsh-web'
import type { ConvertInput, ConvertOutput } from '../convert/convert-body.js'
import { DocumentProcesses, extractTimeoutError } from './document-process.js'
import type { EncodedBody, ExtractJob, ExtractReady, ExtractReply } from './extract-worker.js'

export interface ExtractPoolOptions {
  /** Worker threads (default: cores − 1, between 1 and 4). */
  size?: number
  /** A page whose parse and extraction take longer fails alone (default 15 s). */
  parseTimeoutMs?: number
  /**
   * A worker is replaced after this many pages (default 2000)... A new
   * worker's first hundred or so pages run before V8 has optimised the
   * extraction code: on the shared benchmark, a replacement every 200 pages
   * made the pages 27% slower in sum. No growth of the heap shows over 2,900
   * pages, so this is a guard, not a routine.
   */
  recycleAfterJobs?: number
  /** ...or once its heap holds more than this many MB after a page (default 256). */
  recycleHeapMb?: number
  /** V8 old-generation limit of each worker in MB (default 1024). */
  maxHeapMb?: number
  /** PDFs read at once, each in a child process of its own (default 2; see DocumentProcesses). */
  documentProcesses?: number
  /** Resident memory of each PDF's process in MB, V8 heap and ArrayBuffers alike (default 512). */
  documentMemoryMb?: number
}

interface Pending {
  job: ExtractJob
  /** Moved, not copied, to the worker. */
  transfer: ArrayBuffer[]
  resolve(output: ConvertOutput): void
  reject(error: unknown): void
  signal: AbortSignal
  onAbort?: () => void
}

interface Slot {
  worker: Worker
  jobs: number
  current?: Pending
  timer?: NodeJS.Timeout
  retired: boolean
  /** Its modules are loaded: a page's deadline counts conversion, not the worker's start (the fetch's own deadline covers that). */
  ready: boolean
}

/**
 * A small pool of worker threads for DOM parsing and readability, which are
 * synchronous and slow on big pages. Each page has a deadline (the worker is
 * ended if it passes it), workers are recycled before leaked memory piles up
 * (the replacement starts at once, so that no page waits for its modules to
 * load), and idle workers are unref'd so they never keep the process alive.
 */
export class ExtractPool {
  private readonly size: number
  private readonly parseTimeoutMs: number
  private readonly recycleAfterJobs: number
  private readonly recycleHeapBytes: number
  private readonly maxHeapMb: number
  /** The module the workers run: compiled JavaScript, or the TypeScript source under tsx (for tests and diagnostics). */
  readonly workerSource: URL = workerModuleBeside(import.meta.url, './extract-worker')
  private readonly slots: Slot[] = []
  private readonly queue: Pending[] = []
  /** PDFs: pdf.js holds what it inflates outside the V8 heap, where a worker's heap limit does not reach. */
  readonly documents: DocumentProcesses
  private nextId = 1
  private closed = false

  constructor(options: ExtractPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? Math.min(4, Math.max(1, availableParallelism() - 1)))
    this.parseTimeoutMs = options.parseTimeoutMs ?? 15_000
    this.recycleAfterJobs = options.recycleAfterJobs ?? 2000
    this.recycleHeapBytes = (options.recycleHeapMb ?? 256) * 1024 * 1024
    this.maxHeapMb = options.maxHeapMb ?? 1024
    this.documents = new DocumentProcesses({ concurrency: options.documentProcesses, memoryMb: options.documentMemoryMb, timeoutMs: this.parseTimeoutMs })
  }

  /**
   * Body bytes to what the model reads (hash, decoding, extraction), first
   * inflated when `encoded` names their content encodings. The bytes'
   * buffer is transferred to the worker when `input.bytes` is all of it, so the
   * caller must not use them afterwards. A PDF goes to a document process
   * instead, whose whole memory is capped.
   */
  convert(input: ConvertInput, signal: AbortSignal, encoded?: EncodedBody): Promise<ConvertOutput> {
    if (input.kind === 'pdf') {
      if (this.closed) return Promise.reject(new WebError('WEB_FETCH_FAILED', 'The fetch provider has been shut down.'))
      return this.documents.convert({ input: { ...input, shownUrl: redactUrl(input.url) }, ...(encoded ? { encoded } : {}) }, signal)
    }
    const { bytes } = input
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
    const job: ExtractJob = { id: this.nextId++, type: 'convert', input: { ...input, shownUrl: redactUrl(input.url) }, ...(encoded ? { encoded } : {}) }
    return this.run(job, whole ? [bytes.buffer as ArrayBuffer] : [], signal)
  }

  private run(job: ExtractJob, transfer: ArrayBuffer[], signal: AbortSignal): Promise<ConvertOutput> {
    if (this.closed) return Promise.reject(new WebError('WEB_FETCH_FAILED', 'The fetch provider has been shut down.'))
    if (signal.aborted) return Promise.reject(abortError(signal, `Extracting ${redactUrl(job.input.url)}`))
    return new Promise((resolve, reject) => {
      const pending: Pending = { job, transfer, resolve, reject, signal }
      pending.onAbort = () => this.abort(pending)
      signal.addEventListener('abort', pending.onAbort, { once: true })
      this.queue.push(pending)
      this.dispatch()
    })
  }

  /** Ends every worker; pending pages fail. */
  async close(): Promise<void> {
    this.closed = true
    for (const pending of this.queue.splice(0)) this.settle(pending, new WebError('WEB_FETCH_FAILED', 'The fetch provider was shut down.'))
    await Promise.all([this.documents.close(), ...this.slots.splice(0).map((slot) => this.end(slot, new WebError('WEB_FETCH_FAILED', 'The fetch provider was shut down.')))])
  }

  /** Workers alive now (for tests and diagnostics). */
  get workerCount(): number {
    return this.slots.length
  }

  /** Thread ids of the workers alive now, oldest first (for tests and diagnostics). */
  get threadIds(): number[] {
    return this.slots.map((slot) => slot.worker.threadId)
  }

  private spawn(): Slot {
    const options: WorkerOptions = this.maxHeapMb > 0 ? { resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb } } : {}
    const worker = startModuleWorker(this.workerSource, options)
    const slot: Slot = { worker, jobs: 0, retired: false, ready: false }
    worker.unref()
    worker.on('message', (reply: ExtractReply | ExtractReady) => {
      if (!('ready' in reply)) return this.onReply(slot, reply)
      slot.ready = true
      if (slot.current) this.startDeadline(slot, slot.current)
    })
    worker.on('error', (error) => this.onCrash(slot, error))
    worker.on('exit', (code) => this.onCrash(slot, new Error(`the extraction worker exited with code ${code}`)))
    this.slots.push(slot)
    return slot
  }

  private dispatch() {
    while (this.queue.length) {
      let slot = this.slots.find((candidate) => !candidate.current && !candidate.retired)
      if (!slot) {
        if (this.slots.filter((candidate) => !candidate.retired).length >= this.size) return
        slot = this.spawn()
      }
      const pending = this.queue.shift()!
      slot.current = pending
      slot.jobs++
      slot.worker.ref()
      if (slot.ready) this.startDeadline(slot, pending)
      slot.worker.postMessage(pending.job, pending.transfer)
    }
  }

  private startDeadline(slot: Slot, pending: Pending) {
    slot.timer = setTimeout(() => void this.end(slot, extractTimeoutError(pending.job.input.url, this.parseTimeoutMs)), this.parseTimeoutMs)
  }

  private onReply(slot: Slot, reply: ExtractReply) {
    const pending = slot.current
    if (!pending || pending.job.id !== reply.id) return
    clearTimeout(slot.timer)
    slot.current = undefined
    slot.worker.unref()
    if (reply.ok) this.settle(pending, undefined, reply.output)
    else if (reply.code) this.settle(pending, new WebError(reply.code, reply.message, { details: { url: redactUrl(pending.job.input.url), ...reply.details } }))
    else {
      this.settle(
        pending,
        new WebError('WEB_FETCH_FAILED', `The page at ${redactUrl(pending.job.input.url)} could not be converted to text: ${reply.message}`, {
          details: { url: redactUrl(pending.job.input.url) },
        }),
      )
    }
    if (slot.jobs >= this.recycleAfterJobs || reply.heapUsed > this.recycleHeapBytes) {
      void this.end(slot)
      if (!this.closed && !this.queue.length) this.spawn()
    }
    this.dispatch()
  }

  private onCrash(slot: Slot, error: Error) {
    if (slot.retired) return
    const pending = slot.current
    slot.retired = true
    clearTimeout(slot.timer)
    this.remove(slot)
    if (pending) {
      slot.current = undefined
      const url = redactUrl(pending.job.input.url)
      const outOfMemory = /ERR_WORKER_OUT_OF_MEMORY/.test(String((error as { code?: string }).code))
      this.settle(
        pending,
        new WebError('WEB_FETCH_FAILED', `Converting ${url} to text ${outOfMemory ? 'ran out of memory' : `failed: ${error.message}`}.`, {
          cause: error,
          details: { url },
        }),
      )
    }
    this.dispatch()
  }

  private async end(slot: Slot, error?: unknown) {
    if (slot.retired) return
    slot.retired = true
    clearTimeout(slot.timer)
    this.remove(slot)
    const pending = slot.current
    slot.current = undefined
    if (pending) this.settle(pending, error ?? new WebError('WEB_FETCH_FAILED', 'The extraction worker was stopped.'))
    await slot.worker.terminate().catch(() => undefined)
    this.dispatch()
  }

  private remove(slot: Slot) {
    const index = this.slots.indexOf(slot)
    if (index >= 0) this.slots.splice(index, 1)
  }

  private abort(pending: Pending) {
    const queued = this.queue.indexOf(pending)
    const error = abortError(pending.signal, `Extracting ${redactUrl(pending.job.input.url)}`)
    if (queued >= 0) {
      this.queue.splice(queued, 1)
      this.settle(pending, error)
      return
    }
    const slot = this.slots.find((candidate) => candidate.current === pending)
    if (slot) void this.end(slot, error)
  }

  private settle(pending: Pending, error?: unknown, output?: ConvertOutput) {
    if (pending.onAbort) pending.signal.removeEventListener('abort', pending.onAbort)
    if (error !== undefined) pending.reject(error)
    else pending.resolve(output!)
  }
}
