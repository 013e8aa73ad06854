import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { WebError, abortError, redactUrl } from 'dsh-web'
import type { ConvertOutput } from '../convert/convert-body.js'
import { type DocumentJob, type DocumentReady, type DocumentReply, MEMORY_CAP_MARK } from './document-protocol.js'
import { PDF_IMPORT_STAND_IN } from '../pdf/pdf-globals.js'

export interface DocumentProcessOptions {
  /** Documents read at once, each in its own process; more wait their turn (default 2). */
  concurrency?: number
  /** Resident memory one document's process may reach, in MB, everything counted (default 512). */
  memoryMb?: number
  /** How often the child's watchdog reads its resident memory, in ms (default 5). */
  checkEveryMs?: number
  /** A document whose reading takes longer fails (counted from the child's start-up, as the pool counts). */
  timeoutMs: number
}

/** The deadline's error, one wording for the worker pool and the document processes. */
export function extractTimeoutError(url: string, timeoutMs: number): WebError {
  return new WebError(
    'WEB_TIMEOUT',
    `Extracting the text of ${redactUrl(url)} took longer than ${timeoutMs} ms; the page is too large or too complex. Try format "html" with a smaller maxChars, or another page.`,
    { details: { url: redactUrl(url), limit: timeoutMs } },
  )
}

/** The child's module beside this one: compiled JavaScript, or the TypeScript source under tsx (as the pool's worker). */
function childModule(): URL {
  const here = new URL(import.meta.url)
  return new URL(here.pathname.endsWith('.ts') ? './document-child.ts' : './document-child.js', here)
}

/**
 * How a child starts on TypeScript source (tests, diagnostics): pdf.js is
 * imported first (after the stand-in for the matrix it builds as it loads),
 * without tsx, which would transform its 2 MB of JavaScript at every start
 * (6 s and 250 MB more); tsx is then registered for our own modules, as the
 * pool's worker does it.
 */
function sourceBootstrap(source: URL): string {
  const modules = ['pdfjs-dist/legacy/build/pdf.mjs', 'pdfjs-dist/legacy/build/pdf.worker.mjs'].map((name) => JSON.stringify(import.meta.resolve(name)))
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  return `${PDF_IMPORT_STAND_IN} Promise.all([${modules.join(', ')}].map((url) => import(url))).then(() => import(${api})).then(({ register }) => { register(); return import(${JSON.stringify(source.href)}) })`
}

/** The last few kilobytes a child wrote to stderr: where the watchdog and V8 say why it died. */
const STDERR_KEPT = 8192

function formatBytes(bytes: number): string {
  return bytes >= 1 << 20 ? `${Math.round(bytes / (1 << 20)).toLocaleString('en-US')} MB` : `${Math.ceil(bytes / 1024).toLocaleString('en-US')} KB`
}

/** A document process and the job it is reading, if any. */
interface Child {
  process: ChildProcess
  /** Its modules are loaded: a document's deadline counts reading, not the start-up. */
  ready: boolean
  stderr: string
  job?: {
    start(): void
    answer(reply: DocumentReply): void
    fail(error: WebError): void
    exit(code: number | null, signal: NodeJS.Signals | null): void
  }
  /** Gives back the turn of the document it was reading; called once, when it is idle again or has exited. */
  release?: () => void
}

/**
 * Documents whose reader keeps its memory outside the V8 heap (pdf.js's
 * inflated streams are ArrayBuffers, which a worker's resourceLimits do not
 * count: a PDF of a few KB whose stream inflates to 200 MB took a worker's
 * process to 850 MB under a 1 GB heap limit) are read in child processes whose whole resident
 * memory is capped (document-child.ts's watchdog kills one past `memoryMb`),
 * at most `concurrency` processes alive at once, idle ones included: documents
 * together hold at most concurrency x memoryMb. Over the cap the document
 * fails alone with WEB_DOCUMENT_TOO_COMPLEX. A process reads the next
 * document only if it holds less than half the cap after the last (its start,
 * pdf.js's load, costs a second under load); else it is ended and the next
 * document gets a fresh one. Idle processes never keep the parent alive.
 */
export class DocumentProcesses {
  readonly childSource: URL = childModule()
  private readonly concurrency: number
  private readonly memoryBytes: number
  private readonly checkEveryMs: number
  private readonly timeoutMs: number
  private running = 0
  private readonly waiting: Array<() => void> = []
  private readonly children = new Set<Child>()
  private readonly idle: Child[] = []
  private closed = false
  /** The largest peak resident memory a child reported after a document, in bytes (for tests and the benchmark). */
  peakRss = 0
  /** The most processes that were alive at once (for tests and the benchmark). */
  mostAtOnce = 0
  /** Processes started so far (for tests: a process that held little reads the next document). */
  started = 0

  constructor(options: DocumentProcessOptions) {
    this.concurrency = Math.max(1, options.concurrency ?? 2)
    this.memoryBytes = Math.max(64, options.memoryMb ?? 512) * 1024 * 1024
    this.checkEveryMs = Math.max(1, options.checkEveryMs ?? 5)
    this.timeoutMs = options.timeoutMs
  }

  /** Processes alive now, idle ones included (for tests and diagnostics). */
  get processCount(): number {
    return this.children.size
  }

  async convert(job: DocumentJob, signal: AbortSignal): Promise<ConvertOutput> {
    await this.turn(signal, job.input.url)
    let released = false
    const release = () => {
      if (released) return
      released = true
      this.running--
      this.waiting.shift()?.()
    }
    return this.read(this.idle.pop() ?? this.spawn(), job, signal, release)
  }

  /** Ends every process; documents being read fail. */
  async close(): Promise<void> {
    this.closed = true
    for (const wake of this.waiting.splice(0)) wake()
    for (const child of this.children) {
      child.job?.fail(new WebError('WEB_FETCH_FAILED', 'The fetch provider was shut down.'))
      child.process.kill('SIGKILL')
    }
  }

  /** Waits until fewer than `concurrency` documents are being read (or the call is aborted). */
  private async turn(signal: AbortSignal, url: string): Promise<void> {
    while (this.running >= this.concurrency && !this.closed) {
      if (signal.aborted) throw abortError(signal, `Extracting ${redactUrl(url)}`)
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        }
        const onAbort = () => {
          const index = this.waiting.indexOf(wake)
          if (index >= 0) this.waiting.splice(index, 1)
          resolve()
        }
        this.waiting.push(wake)
        signal.addEventListener('abort', onAbort, { once: true })
      })
    }
    if (this.closed) throw new WebError('WEB_FETCH_FAILED', 'The fetch provider was shut down.')
    if (signal.aborted) throw abortError(signal, `Extracting ${redactUrl(url)}`)
    this.running++
  }

  private spawn(): Child {
    const entry = this.childSource.pathname.endsWith('.ts') ? ['-e', sourceBootstrap(this.childSource)] : [fileURLToPath(this.childSource)]
    // Not the parent's flags (a test runner's, an inspector's): the child's own heap limit.
    const spawned = spawn(process.execPath, [`--max-old-space-size=${Math.ceil(this.memoryBytes / (1024 * 1024))}`, ...entry], {
      env: { ...process.env, DSH_DOCUMENT_RSS_CAP_BYTES: String(this.memoryBytes), DSH_DOCUMENT_RSS_CHECK_MS: String(this.checkEveryMs) },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    const child: Child = { process: spawned, ready: false, stderr: '' }
    this.children.add(child)
    this.started++
    this.mostAtOnce = Math.max(this.mostAtOnce, this.children.size)
    spawned.stderr!.setEncoding('utf8')
    spawned.stderr!.on('data', (chunk: string) => {
      child.stderr = (child.stderr + chunk).slice(-STDERR_KEPT)
    })
    spawned.on('message', (message: DocumentReply | DocumentReady) => {
      if (!('ready' in message)) return child.job?.answer(message)
      child.ready = true
      child.job?.start()
    })
    spawned.on('error', (error) => child.job?.fail(new WebError('WEB_FETCH_FAILED', `The document reader could not run: ${error.message}`, { cause: error })))
    spawned.on('close', (code, signalName) => {
      this.children.delete(child)
      const index = this.idle.indexOf(child)
      if (index >= 0) this.idle.splice(index, 1)
      child.job?.exit(code, signalName)
      child.release?.()
    })
    return child
  }

  private read(child: Child, job: DocumentJob, signal: AbortSignal, release: () => void): Promise<ConvertOutput> {
    const url = redactUrl(job.input.url)
    child.release = release
    child.process.ref()
    child.process.channel?.ref()
    return new Promise<ConvertOutput>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      /** `keep`: the process answered and holds little: it waits, idle, for the next document. */
      const finish = (error: unknown, output?: ConvertOutput, keep = false) => {
        if (child.job !== handlers) return
        child.job = undefined
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        if (keep && !this.closed) {
          child.release = undefined
          child.process.unref()
          child.process.channel?.unref()
          this.idle.push(child)
          release()
        } else child.process.kill('SIGKILL')
        if (error === undefined) resolve(output!)
        else reject(error)
      }
      const handlers: NonNullable<Child['job']> = {
        start: () => {
          timer = setTimeout(() => finish(extractTimeoutError(job.input.url, this.timeoutMs)), this.timeoutMs)
          child.process.send(job)
        },
        answer: (reply) => {
          this.peakRss = Math.max(this.peakRss, reply.peakRss)
          const keep = reply.rss < this.memoryBytes / 2
          if (reply.ok) finish(undefined, reply.output, keep)
          else if (reply.code) finish(new WebError(reply.code, reply.message, { details: { url, ...reply.details } }), undefined, keep)
          else finish(new WebError('WEB_FETCH_FAILED', `The document at ${url} could not be converted to text: ${reply.message}`, { details: { url } }), undefined, keep)
        },
        fail: (error) => finish(error),
        exit: (code, signalName) => finish(this.closed ? new WebError('WEB_FETCH_FAILED', 'The fetch provider was shut down.') : this.deathError(url, job.input.bytes.byteLength, child.stderr, code, signalName)),
      }
      const onAbort = () => finish(abortError(signal, `Extracting ${url}`))
      child.job = handlers
      signal.addEventListener('abort', onAbort, { once: true })
      if (signal.aborted) return onAbort()
      if (child.ready) handlers.start()
    })
  }

  /** Why a child ended before its reply: its memory cap (the watchdog's mark, or V8's heap limit), else a crash. */
  private deathError(url: string, bodyBytes: number, stderr: string, code: number | null, signalName: NodeJS.Signals | null): WebError {
    const capped = stderr.lastIndexOf(MEMORY_CAP_MARK)
    const heap = /heap out of memory|allocation failed/i.test(stderr)
    if (capped >= 0 || heap) {
      const limitMb = Math.round(this.memoryBytes / (1024 * 1024))
      const seen = capped >= 0 ? Number.parseInt(stderr.slice(capped + MEMORY_CAP_MARK.length), 10) : NaN
      return new WebError(
        'WEB_DOCUMENT_TOO_COMPLEX',
        `Reading the document at ${url} (${formatBytes(bodyBytes)}) needed more than the ${limitMb} MB of memory a document reader may use: its contents expand far beyond its size, as a decompression bomb's do. It was stopped; look for an HTML version or a smaller copy of the document.`,
        { details: { url, limit: limitMb, contentType: 'application/pdf', ...(Number.isFinite(seen) ? { reachedBytes: seen } : {}) } },
      )
    }
    return new WebError('WEB_FETCH_FAILED', `The document reader for ${url} ended without an answer (${signalName ? `signal ${signalName}` : `exit code ${code}`}).`, { details: { url } })
  }
}
