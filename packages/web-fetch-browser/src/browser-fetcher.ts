import { readProxySettings } from 'dsh-host'
import type { ArtifactRef, JsonValue } from 'dsh-host'
import { EXTENSIONS, EXTRACTS, FORMATS, WebError, abortError, checkEnum, positive, redactUrl, routeFor, writeWebArtifact } from 'dsh-web'
import type { FetchExtract, FetchFormat, FetchProvider, FetchRequest, FetchedDocument, PageOutcome, ProviderCall } from 'dsh-web'
import { AddressPolicy, type EgressOptions, PinnedAgents, withFixedAnswers } from 'dsh-web-egress'
import { ExtractPool, MAX_MAX_CHARS, type ConvertOutput, type ReaderOptions, judgePage, readPageWindow, viewPage } from 'dsh-web-readers'
import { ChromiumProcess, type ChromiumStatus, DEFAULT_EXECUTABLE } from './chromium-process.js'
import { type RenderedDocument, RenderCache } from './render-cache.js'
import { BrowserGone, type RenderedPage, renderPage } from './render-page.js'
import { VettingProxy, type VettingProxyOptions } from './vetting-proxy.js'

export const PROVIDER_ID = 'browser'

/** The same egress policy and route as the static provider (dsh-web-egress), and the same readers (dsh-web-readers). */
export interface BrowserFetcherOptions extends EgressOptions, Pick<ReaderOptions, 'extractTimeoutMs' | 'extractWorkers' | 'maxElemsToParse'> {
  /** User-Agent of the browser's requests (default: Chromium's own). */
  userAgent?: string
  /** How long a rendered document is kept for paging and for other calls (default 10 min; 0 keeps none). */
  cacheTtlMs?: number
  /** Converted text longer than this is also written whole to an artifact file (default 200,000 characters). */
  artifactThreshold?: number
  /** Where artifacts go when the call has no session (default: the seam's temp folder, $TMPDIR/dsh-artifacts). */
  artifactDir?: string
  /** The Chromium to run (default /usr/bin/chromium, Debian's package). */
  executablePath?: string
  /** Deadline of the render: starting the browser, navigation, settling and reading the DOM (default 30 s); extraction then has extractTimeoutMs. */
  timeoutMs?: number
  /** Quiet time without requests after `load` for the page to count as settled (default 500 ms). */
  settleMs?: number
  /** Bytes the page's traffic may bring back, every request together, and the cap on its rendered HTML (default 20 MB). */
  maxBytes?: number
  /** Requests one page may make, tunnels included (default 300). */
  maxRequests?: number
  /** Pages rendered at once, each in a context of its own; more wait within their deadline (default 2). */
  maxContexts?: number
  /** Resident memory of the browser's whole process tree, in MB; past it the browser is killed and started again (default 2048). */
  memoryMb?: number
  /** V8 heap of each renderer process, in MB (default 512). */
  rendererHeapMb?: number
  /** How often the browser's memory is read (default 250 ms). */
  memoryCheckMs?: number
}

export interface BrowserFetcher extends FetchProvider {
  fetch(request: FetchRequest, call?: Partial<ProviderCall>): Promise<FetchedDocument>
  /** The browser as `dsh doctor` reports it: found, version, sandbox on or off and why, restarts. */
  status(): ChromiumStatus
  /** `chromium --version`, without starting a browser. */
  readVersion(): Promise<string>
  close(): Promise<void>
}

/** A counting gate: at most `size` pages at once, the others waiting in order within their deadline. */
class Slots {
  private used = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly size: number) {}

  async take(signal: AbortSignal): Promise<() => void> {
    if (this.used >= this.size) {
      await new Promise<void>((resolve, reject) => {
        const ready = () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        }
        const onAbort = () => {
          this.waiting.splice(this.waiting.indexOf(ready), 1)
          reject(abortError(signal, 'Waiting for a browser context'))
        }
        signal.addEventListener('abort', onAbort, { once: true })
        this.waiting.push(ready)
      })
    } else this.used++
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      if (next) next()
      else this.used--
    }
  }
}

/**
 * What the rendered page was: partial when it did not finish by its
 * deadline, else what the static reader's judge (web-fetch-http's
 * judgePage) makes of the rendered DOM, so that a bot wall or a login wall
 * is typed the same whichever provider read it.
 */
function outcomeOf(rendered: RenderedPage, output: ConvertOutput, bodyCut: boolean): PageOutcome {
  const base = { readAs: 'rendered' as const, renderedBy: PROVIDER_ID }
  if (rendered.partial) return { ...base, kind: 'partial', evidence: rendered.partial, renderNote: 'rendered by the browser provider; the text is what the page showed at its deadline' }
  const judged = judgePage({ kind: output.kind, signals: output.signals, text: output.text, status: rendered.status, headers: {}, bodyCut })
  return { ...judged, ...base, renderNote: judged.kind === 'ok' ? 'rendered by the browser provider' : `rendered by the browser provider, and still ${judged.kind} once its scripts ran` }
}

export function createBrowserFetcher(options: BrowserFetcherOptions = {}): BrowserFetcher {
  const policy = new AddressPolicy({ ...options, fakeIpRanges: options.proxy?.fakeIpRanges, lookup: withFixedAnswers(options.lookup, options.resolve) })
  const proxySettings = readProxySettings(options.env ?? process.env, options.proxy ?? {})
  const resolveLocally = options.proxy?.resolveLocally ?? true
  const tunnelHttp = options.proxy?.tunnelHttp ?? true
  const timeoutMs = positive(options.timeoutMs, 30_000, 'timeoutMs')
  const settleMs = positive(options.settleMs, 500, 'settleMs')
  const maxBytes = positive(options.maxBytes, 20 * 1024 * 1024, 'maxBytes')
  const maxRequests = positive(options.maxRequests, 300, 'maxRequests')
  const artifactThreshold = positive(options.artifactThreshold, 200_000, 'artifactThreshold')
  const maxElemsToParse = positive(options.maxElemsToParse, 200_000, 'maxElemsToParse')
  const slots = new Slots(Math.max(1, positive(options.maxContexts, 2, 'maxContexts')))
  const agents = new PinnedAgents()
  const cache = new RenderCache(positive(options.cacheTtlMs, 10 * 60_000, 'cacheTtlMs'))
  const pool = new ExtractPool({ size: options.extractWorkers ?? 1, parseTimeoutMs: options.extractTimeoutMs })
  const proxyBase: Omit<VettingProxyOptions, 'allowedDomains' | 'proxyCredential' | 'refuseAll'> = { policy, proxy: proxySettings, resolveLocally, tunnelHttp, agents, timeoutMs, maxRequests, maxBytes }
  const chromium = new ChromiumProcess({
    executablePath: options.executablePath ?? DEFAULT_EXECUTABLE,
    memoryMb: positive(options.memoryMb, 2048, 'memoryMb'),
    rendererHeapMb: positive(options.rendererHeapMb, 512, 'rendererHeapMb'),
    launchTimeoutMs: Math.min(timeoutMs, 30_000),
    memoryCheckMs: options.memoryCheckMs,
    startRefusingProxy: () => VettingProxy.start({ ...proxyBase, refuseAll: "The browser's own traffic (outside any page: updates, time queries, background services) is never sent." }),
  })

  async function readProxyCredential(signal: AbortSignal): Promise<string | undefined> {
    const name = options.proxy?.credential
    if (!name) return undefined
    if (!options.resolveCredential) throw new WebError('INVALID_ARGUMENT', `proxy.credential names ${name}, but this fetcher has no credential lookup; mount it as a plugin or pass resolveCredential.`, { details: { argument: 'proxy.credential' } })
    const value = await options.resolveCredential(name, signal)
    if (!value.includes(':')) throw new WebError('INVALID_ARGUMENT', `The credential ${name} named by proxy.credential must hold user:password (its value is not shown).`, { details: { argument: 'proxy.credential', credential: name } })
    return value
  }

  /** The page's own URL is vetted here first, on its route: a refused one fails at once, with nothing started. */
  async function vetFirst(url: URL, signal: AbortSignal) {
    const route = routeFor(url, proxySettings)
    if (route.kind === 'direct') return policy.vetUrl(url, signal)
    return policy.vetForProxy(url, { resolveLocally, proxy: route.origin }, signal)
  }

  /** Renders the page and converts it: the part of a fetch that the cache keeps. */
  async function renderDocument(url: URL, request: FetchRequest, format: FetchFormat, extract: FetchExtract, call: Partial<ProviderCall>, signal: AbortSignal): Promise<RenderedDocument> {
    const fetchedAt = new Date().toISOString()
    const deadline = Math.min(call.deadline ?? Infinity, Date.now() + timeoutMs)
    const controller = new AbortController()
    const onAbort = () => controller.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    const timer = setTimeout(() => controller.abort(new WebError('WEB_TIMEOUT', `Rendering ${redactUrl(url)} took longer than its deadline of ${timeoutMs} ms.`)), Math.max(0, deadline - Date.now()))
    let release = () => {}
    let proxy: VettingProxy | undefined
    try {
      await vetFirst(url, controller.signal)
      const proxyCredential = await readProxyCredential(controller.signal)
      release = await slots.take(controller.signal)
      proxy = await VettingProxy.start({ ...proxyBase, ...(request.allowedDomains ? { allowedDomains: request.allowedDomains } : {}), ...(proxyCredential ? { proxyCredential } : {}) })
      // Aborting the call closes the page's proxy, which ends its traffic at once.
      const pageProxy = proxy
      controller.signal.addEventListener('abort', () => void pageProxy.close(), { once: true })
      // A second is left for reading the DOM and closing the page; extraction then has its own deadline (extractTimeoutMs), as for a static page.
      const render = async () => {
        const { browser, ended, lost } = await chromium.acquire()
        try {
          return await renderPage(browser, { url, proxy: pageProxy, deadline: deadline - 1000, settleMs, browserEnded: ended, ...(options.userAgent ? { userAgent: options.userAgent } : {}) })
        } catch (error) {
          if (error instanceof BrowserGone) lost()
          throw error
        }
      }
      // A browser that died between calls is found out when the page's context cannot be opened (nothing of the page ran yet): a new one renders it.
      const rendered = await render().catch((error) => {
        if (error instanceof BrowserGone && !controller.signal.aborted) return render()
        throw error
      }).catch((error) => {
        if (error instanceof BrowserGone) throw new WebError('WEB_FETCH_FAILED', `Rendering ${redactUrl(url)} failed: the browser could not open a page (${error.message}).`, { cause: error })
        throw error
      })
      clearTimeout(timer)
      if (signal.aborted) throw abortError(signal, `Rendering ${redactUrl(url)}`)
      const warnings: string[] = []
      let bytes = Buffer.from(rendered.html, 'utf8')
      let bodyTruncatedReason: string | undefined
      if (bytes.length > maxBytes) {
        const why = `The rendered page is ${bytes.length} bytes of HTML, over the cap of ${maxBytes} bytes (maxBytes).`
        if (request.allowPartial !== true) throw new WebError('WEB_FETCH_TOO_LARGE', `${why} Call with allowPartial to read its first part.`, { details: { url: redactUrl(url), limit: maxBytes } })
        bodyTruncatedReason = `${why} Only its first ${maxBytes} bytes are read.`
        bytes = bytes.subarray(0, maxBytes)
      }
      if (proxy.byteCapReached) warnings.push(`The page's traffic reached the byte cap of ${maxBytes} bytes (maxBytes): what it loaded after that was cut off.`)
      if (proxy.refused.count) warnings.push(`${proxy.refused.count} request${proxy.refused.count === 1 ? '' : 's'} the page made ${proxy.refused.count === 1 ? 'was' : 'were'} refused (provenance.refused says which).`)
      const output = await pool.convert({ bytes: new Uint8Array(bytes), contentType: 'text/html; charset=utf-8', kind: 'html', url: rendered.finalUrl, format, extract, maxElemsToParse }, signal)
      warnings.push(...output.warnings)
      const upstream = [...proxy.routes].find((route) => route !== 'direct')
      const status = chromium.status()
      return {
        text: output.text,
        metadata: output.metadata,
        links: output.links,
        warnings,
        outcome: outcomeOf(rendered, output, bodyTruncatedReason !== undefined),
        ...(bodyTruncatedReason ? { bodyTruncatedReason } : {}),
        provenance: {
          requestedUrl: url.href,
          finalUrl: rendered.finalUrl,
          redirects: rendered.redirects,
          route: upstream ? 'proxy' : 'direct',
          ...(upstream ? { proxy: upstream } : {}),
          checks: ['vetting-proxy', status.sandbox.enabled ? 'sandbox' : 'no-sandbox'],
          status: rendered.status,
          ...(rendered.contentType ? { contentType: rendered.contentType } : {}),
          bytesRead: proxy.bytes,
          extractor: `${status.version ?? 'chromium'} + ${output.extractor}`,
          sourceSha256: output.sha256,
          fetchedAt,
          refused: { count: proxy.refused.count, first: proxy.refused.first.map((entry) => ({ ...entry })) },
        },
      }
    } catch (error) {
      if (controller.signal.aborted && !(WebError.is(error) && error.code !== 'WEB_FETCH_FAILED' && error.code !== 'WEB_DOCUMENT_TOO_COMPLEX')) throw abortError(controller.signal, `Rendering ${redactUrl(url)}`)
      throw error
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      await proxy?.close()
      release()
    }
  }

  async function fetchDocument(request: FetchRequest, call: Partial<ProviderCall> = {}): Promise<FetchedDocument> {
    const started = performance.now()
    if (!request || typeof request !== 'object') throw new WebError('INVALID_ARGUMENT', 'The fetch request must be an object with a url.')
    const window = readPageWindow(request, MAX_MAX_CHARS)
    const format = checkEnum(request.format, FORMATS, 'format', 'markdown')
    const extract = checkEnum(request.extract, EXTRACTS, 'extract', 'main')
    const url = policy.parse(request.url, request.allowedDomains)
    const signal = call.signal ?? new AbortController().signal
    if (signal.aborted) throw abortError(signal, `Rendering ${redactUrl(url)}`)
    const variant = JSON.stringify([format, extract, request.allowPartial === true, request.allowedDomains ?? null])
    let document = cache.get(`${url.href} ${variant}`)
    const cacheHit = document !== undefined
    if (!document) {
      document = await renderDocument(url, request, format, extract, call, signal)
      cache.set([`${url.href} ${variant}`, `${document.provenance.finalUrl} ${variant}`], document)
    }
    // The part, the matches or the passages: all of this one snapshot, so their offsets are those a later call pages by.
    const page = viewPage(document.text, format, window)
    let artifact: ArtifactRef | undefined
    if (document.text.length > artifactThreshold) {
      artifact = await writeWebArtifact(document.text, {
        session: call.session,
        directory: call.session ? undefined : options.artifactDir,
        stem: call.callId ? `web-fetch-${call.callId}` : 'web-fetch',
        extension: EXTENSIONS[format],
        // The page's text: the file holds it fenced, as the model sees it in the result.
        untrustedSource: document.provenance.finalUrl,
      })
    }
    const truncatedReason = document.bodyTruncatedReason ?? page.partNote
    const { provenance } = document
    const result: FetchedDocument = {
      providerId: PROVIDER_ID,
      url: provenance.finalUrl,
      status: provenance.status,
      contentType: provenance.contentType,
      format,
      text: page.text,
      offset: page.offset,
      nextOffset: page.nextOffset,
      totalChars: page.totalChars,
      truncated: page.truncated || truncatedReason !== undefined,
      truncatedReason,
      metadata: { ...document.metadata },
      links: document.links.map((link) => ({ ...link })),
      artifact,
      provenance: structuredClone({ ...provenance, durationMs: Math.round((performance.now() - started) * 10) / 10, cacheHit }),
      outcome: { ...document.outcome },
      find: page.find,
      query: page.query,
      warnings: [...document.warnings, ...page.warnings],
    }
    if (provenance.status < 200 || provenance.status > 299) {
      result.error = { code: 'WEB_HTTP_STATUS', message: `The server answered ${provenance.status}; the text is the page it sent with that status, as rendered (often an error page, not the content asked for).` }
    }
    for (const key of Object.keys(result) as (keyof FetchedDocument)[]) if (result[key] === undefined) delete result[key]
    if (call.session) {
      try {
        await call.session.append('web/browser-document-fetch', { ...(call.callId ? { callId: call.callId } : {}), provenance: JSON.parse(JSON.stringify(result.provenance)) as JsonValue, format, extract }, { visibility: 'log' })
      } catch (error) {
        result.warnings.push(`The fetch could not be written to the session log: ${(error as Error)?.message ?? error}`)
      }
    }
    return result
  }

  return {
    id: PROVIDER_ID,
    available: () => chromium.status().found,
    unavailableReason: () => (chromium.status().found ? undefined : `No Chromium at ${options.executablePath ?? DEFAULT_EXECUTABLE}: apt-get install chromium, or set executablePath in the web-fetch-browser row.`),
    fetch: fetchDocument,
    status: () => chromium.status(),
    readVersion: () => chromium.readVersion(),
    async close() {
      cache.clear()
      await Promise.all([chromium.close(), pool.close(), agents.destroy()])
    },
  }
}
