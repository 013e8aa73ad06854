import { readFileSync } from 'node:fs'
import type { SecureContext } from 'node:tls'
import { type ProxySource, parseProxyUrl, readProxySettings } from 'dsh-host'
import { EXTENSIONS, EXTRACTS, FORMATS, MemoryStateStore, SharedState, WebError, abortError, checkEnum, positive, redactUrl, writeWebArtifact } from 'dsh-web'
import type { FetchExtract, FetchFormat, FetchProvider, FetchRequest, FetchedDocument, ProviderCall } from 'dsh-web'
import type { ArtifactRef, JsonValue, LimitRule, SessionHandle } from 'dsh-host'
import { AddressPolicy, type EgressOptions, PinnedAgents, type VettedDestination, transportError, withFixedAnswers } from 'dsh-web-egress'
import type { ExtractPool, ReaderOptions } from 'dsh-web-readers'
import { type CachedDocument, DocumentCache, type DocumentVariant, trustFingerprint } from './document-cache.js'
import { RobotsGate } from './robots-gate.js'
import { FetchLimits, hasSiteLimits, readSiteLimits } from './site-limits.js'

type FetchParts = typeof import('./fetch-parts.js')
let fetchParts: Promise<FetchParts> | undefined
/** The modules a fetch needs and a start does not (fetch-parts.ts), loaded once, at the first fetch. */
const loadFetchParts = () => (fetchParts ??= import('./fetch-parts.js'))

export const PROVIDER_ID = 'http'

export interface HttpFetcherOptions extends EgressOptions, ReaderOptions {
  /** Byte cap on the body, on the wire and after decompression (default 5 MB). */
  maxBytes?: number
  /** Deadline of the whole fetch, redirects and body included (default 30 s). */
  timeoutMs?: number
  /** Redirects followed at most (default 5). */
  maxRedirects?: number
  userAgent?: string
  /**
   * The seam's shared state (ctx.web.state), read at every fetch: where
   * converted documents are kept and limits counted. Without it the fetcher
   * keeps its own in-process store of `cacheMaxBytes` (default 50 MB).
   */
  state?: () => SharedState
  cacheMaxBytes?: number
  /** How long a converted document is kept for paging and for other calls (default 10 min; 0 keeps none). */
  cacheTtlMs?: number
  /** The limit of every site (registrable domain): requests per interval and concurrent requests, across every process on the state store. */
  limitPerDomain?: LimitRule
  /** Limits of named sites instead of `limitPerDomain`, by registrable domain (or address). */
  limitPerDomainOverrides?: Record<string, LimitRule>
  /** Converted text longer than this is also written whole to an artifact file (default 200,000 characters). */
  artifactThreshold?: number
  /** Where artifacts go when the call has no session (default: the seam's temp folder, $TMPDIR/dsh-artifacts). */
  artifactDir?: string
  /**
   * Certificate authorities (PEM) trusted for https in addition to Node's
   * bundled roots and NODE_EXTRA_CA_CERTS: for an operator's internal CA or a
   * test CA. Verification of the chain and the host name always stays on.
   */
  ca?: string | Buffer | Array<string | Buffer>
  /** Read each origin's robots.txt first and refuse what it disallows for dsh-web (default false; docs/security.md). */
  respectRobots?: boolean
}

export interface HttpFetcher extends FetchProvider {
  vet(url: string, options?: { signal?: AbortSignal }): Promise<Omit<VettedDestination, 'trusted' | 'checks'>>
  fetch(request: FetchRequest, call?: Partial<ProviderCall>): Promise<FetchedDocument>
  /** Ends the extraction workers, closes every kept connection and empties the cache. */
  close(): Promise<void>
}

export const DEFAULT_USER_AGENT = 'dsh-web-fetch-http/0.1 (+https://github.com/dsh-web; reads pages for an AI agent)'

/**
 * A log-only audit line in the session: where the text came from, never the
 * text or any header. A log that cannot be written is said in the warnings.
 */
async function appendAudit(session: SessionHandle, result: FetchedDocument, data: { [key: string]: JsonValue }) {
  try {
    await session.append('web/http-document-fetch', data, { visibility: 'log' })
  } catch (error) {
    result.warnings.push(`The fetch could not be written to the session log: ${(error as Error)?.message ?? error}`)
  }
}

/** The bytes in a buffer of their own (Buffer.concat of a small body uses the shared pool), so that it can be transferred. */
function ownedBytes(bytes: Buffer): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes
  return new Uint8Array(bytes)
}

/** A TLS context that trusts the default roots (bundled and NODE_EXTRA_CA_CERTS) plus `ca`. */
function trustContext(ca: NonNullable<HttpFetcherOptions['ca']>): SecureContext {
  const extra = (Array.isArray(ca) ? ca : [ca]).map((item) => (typeof item === 'string' ? item : item.toString('utf8')))
  if (!extra.every((item) => item.includes('-----BEGIN CERTIFICATE-----'))) {
    throw new WebError('INVALID_ARGUMENT', 'ca must be one or more PEM certificates (-----BEGIN CERTIFICATE-----).', { details: { argument: 'ca' } })
  }
  // Loaded only for a row that names its own CA: a start without one never loads node:tls.
  const { createSecureContext, rootCertificates } = process.getBuiltinModule('node:tls')
  const defaults = [...rootCertificates]
  const extraFile = process.env.NODE_EXTRA_CA_CERTS
  if (extraFile) {
    try {
      defaults.push(readFileSync(extraFile, 'utf8'))
    } catch {
      // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS
    }
  }
  return createSecureContext({ ca: [...defaults, ...extra] })
}

export function createHttpFetcher(options: HttpFetcherOptions = {}): HttpFetcher {
  const policy = new AddressPolicy({ ...options, fakeIpRanges: options.proxy?.fakeIpRanges, lookup: withFixedAnswers(options.lookup, options.resolve) })
  const proxySettings = readProxySettings(options.env ?? process.env, options.proxy ?? {})
  const resolveLocally = options.proxy?.resolveLocally ?? true
  const maxBytes = positive(options.maxBytes, 5 * 1024 * 1024, 'maxBytes')
  const timeoutMs = positive(options.timeoutMs, 30_000, 'timeoutMs')
  const maxRedirects = positive(options.maxRedirects, 5, 'maxRedirects')
  const artifactThreshold = positive(options.artifactThreshold, 200_000, 'artifactThreshold')
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT
  const ownMemory = options.state ? undefined : new MemoryStateStore(positive(options.cacheMaxBytes, 50 * 1024 * 1024, 'cacheMaxBytes'))
  const ownState = ownMemory
    ? new SharedState({ selected: () => ownMemory, memory: ownMemory, timeoutMs: 1000, retryAfterFailureMs: 1000 })
    : undefined
  const state = options.state ?? (() => ownState!)
  const cache = new DocumentCache(state, positive(options.cacheTtlMs, 10 * 60_000, 'cacheTtlMs'), trustFingerprint([
    options.privateHosts ?? [], options.resolve ?? {}, options.allowedDomains ?? [], options.blockedDomains ?? [],
    options.maxBytes ?? null, options.maxRedirects ?? null, options.userAgent ?? null, options.maxElemsToParse ?? null,
    options.proxy?.fakeIpRanges ?? [], options.proxy?.resolveLocally ?? true, options.ca === undefined ? null : (Array.isArray(options.ca) ? options.ca : [options.ca]).map(String),
    proxyOrigin(proxySettings.httpProxy), proxyOrigin(proxySettings.httpsProxy), proxySettings.noProxy, options.proxy?.tunnelHttp ?? true, options.proxy?.credential ?? null,
  ]))
  const siteLimits = readSiteLimits(options.limitPerDomain, options.limitPerDomainOverrides)
  const limited = hasSiteLimits(siteLimits)
  // Artifacts are files of this machine: remembered here, never in the shared cache.
  const artifacts = new Map<string, ArtifactRef>()
  // The workers' pool, made at the first fetch (it starts no worker before a page needs one).
  let pool: ExtractPool | undefined
  const poolOf = (parts: FetchParts) =>
    (pool ??= new parts.ExtractPool({
      size: options.extractWorkers,
      parseTimeoutMs: options.extractTimeoutMs,
      recycleAfterJobs: options.recycleAfterJobs,
      documentProcesses: options.documentProcesses,
      documentMemoryMb: options.documentMemoryMb,
    }))
  const maxElemsToParse = positive(options.maxElemsToParse, 200_000, 'maxElemsToParse')
  // Built once here, not per connection: parsing the roots takes tens of milliseconds.
  const secureContext = options.ca === undefined ? undefined : trustContext(options.ca)
  // Direct-route connections, kept open between fetches to the same vetted address.
  const agents = new PinnedAgents()

  /** The proxy's `user:password`, looked up for each fetch; never logged, never in an error. */
  async function readProxyCredential(signal: AbortSignal): Promise<string | undefined> {
    const name = options.proxy?.credential
    if (!name) return undefined
    if (!options.resolveCredential) {
      throw new WebError('INVALID_ARGUMENT', `proxy.credential names ${name}, but this fetcher has no credential lookup; mount it as a plugin or pass resolveCredential.`, { details: { argument: 'proxy.credential' } })
    }
    const value = await options.resolveCredential(name, signal)
    if (!value.includes(':')) {
      throw new WebError('INVALID_ARGUMENT', `The credential ${name} named by proxy.credential must hold user:password (its value is not shown).`, { details: { argument: 'proxy.credential', credential: name } })
    }
    return value
  }

  async function download(parts: FetchParts, url: URL, request: FetchRequest, format: FetchFormat, extract: FetchExtract, signal: AbortSignal, fetchedAt: string, limits?: FetchLimits): Promise<CachedDocument> {
    const { classifyBody, classifyContentType, discard, essence, header, judgePage, OUTCOME_HEADERS, readBodyForWorker } = parts
    const proxyCredential = await readProxyCredential(signal)
    const response = await parts.requestFollowingRedirects(
      url,
      policy,
      {
        agents, maxRedirects, userAgent, timeoutMs, secureContext, proxy: proxySettings, resolveLocally, proxyCredential, tunnelHttp: options.proxy?.tunnelHttp ?? true,
        ...(limits ? { beforeRequest: (hop: URL) => limits.beforeRequest(hop) } : {}),
      },
      signal,
      request.allowedDomains,
    )
    const finalUrl = response.url.href
    const contentTypeHeader = header(response.headers, 'content-type')
    let body
    try {
      const kind = classifyContentType(contentTypeHeader, finalUrl, header(response.headers, 'content-length'))
      try {
        // A PDF under no type or application/octet-stream is read; other binary is refused here (content-type.ts).
        body = await readBodyForWorker(response.body, {
          contentEncoding: header(response.headers, 'content-encoding'),
          maxBytes,
          allowPartial: request.allowPartial === true,
          url: finalUrl,
          sniff: (bytes) => classifyBody(kind, bytes, contentTypeHeader, finalUrl),
        })
      } catch (error) {
        throw transportError(error, response.url, signal)
      }
      // The site's slot ends with its body, not with the extraction.
      await limits?.close()
      // Inflating, hashing, decoding and extraction run in a worker, which gets the bytes by transfer.
      const output = await poolOf(parts).convert(
        { bytes: ownedBytes(body.bytes), contentType: contentTypeHeader, kind: body.kind, url: finalUrl, format, extract, maxElemsToParse },
        signal,
        body.encodings.length ? { encodings: body.encodings, maxBytes } : undefined,
      )
      const { text, metadata, links, extractor } = output
      const outcome = judgePage({
        kind: output.kind,
        signals: output.signals,
        text,
        status: response.status,
        headers: Object.fromEntries(OUTCOME_HEADERS.map((name) => [name, header(response.headers, name)])),
        bodyCut: body.truncatedReason !== undefined,
      })
      // HTML is read as served here; a renderer (another fetch provider) says otherwise.
      if (outcome.kind !== 'ok' && output.kind === 'html') outcome.renderNote = `not rendered: the ${PROVIDER_ID} fetch provider reads pages as served and runs no scripts`
      const warnings = [...output.warnings]
      if (output.kind === 'text' && format !== 'text') warnings.push(`The response is ${essence(contentTypeHeader) ?? 'text'}, not HTML; it is returned as it is.`)
      if (body.truncatedReason) warnings.push(body.truncatedReason)
      return {
        text,
        metadata,
        links,
        warnings,
        extractor,
        requestedUrl: url.href,
        finalUrl,
        redirects: response.redirects,
        address: response.address,
        route: response.route,
        proxy: response.proxy,
        checks: response.checks,
        status: response.status,
        contentType: essence(contentTypeHeader),
        charset: output.charset,
        bytesRead: body.wireBytes,
        sourceSha256: output.sha256,
        bodyTruncatedReason: body.truncatedReason,
        fetchedAt,
        outcome,
        ...(output.pageStarts ? { pageStarts: output.pageStarts } : {}),
      }
    } finally {
      discard(response.body)
      response.close()
    }
  }

  // robots.txt is read through this same fetcher: the address policy, the route, the limits and the cache hold for it too.
  const robots = options.respectRobots
    ? new RobotsGate(async (robotsUrl, signal) => {
        const document = await fetchDocument({ url: robotsUrl, format: 'text', extract: 'full', maxChars: (await loadFetchParts()).MAX_MAX_CHARS }, { signal })
        return { status: document.status, text: document.text }
      })
    : undefined

  async function fetchDocument(request: FetchRequest, call: Partial<ProviderCall> = {}): Promise<FetchedDocument> {
    const started = performance.now()
    const fetchedAt = new Date().toISOString()
    if (!request || typeof request !== 'object') throw new WebError('INVALID_ARGUMENT', 'The fetch request must be an object with a url.')
    const parts = await loadFetchParts()
    const window = parts.readPageWindow(request, parts.MAX_MAX_CHARS)
    const format = checkEnum(request.format, FORMATS, 'format', 'markdown')
    const extract = checkEnum(request.extract, EXTRACTS, 'extract', 'main')
    const url = policy.parse(request.url, request.allowedDomains)
    const signal = call.signal ?? new AbortController().signal
    if (signal.aborted) throw abortError(signal, `Fetching ${redactUrl(url)}`)
    // robots.txt itself is always allowed (RFC 9309 2.2.2), so reading it never asks the gate again.
    if (robots && url.pathname !== '/robots.txt') await robots.check(url, signal)
    const variant: DocumentVariant = { format, extract, allowPartial: request.allowPartial === true, ...(request.allowedDomains ? { allowedDomains: request.allowedDomains } : {}) }
    // What the state store could not do, said in the result's warnings.
    const notes: string[] = []
    let document = await cache.get(url.href, variant, notes)
    const cacheHit = document !== undefined
    if (!document) {
      const controller = new AbortController()
      const onAbort = () => controller.abort(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      const timer = setTimeout(
        () => controller.abort(new WebError('WEB_TIMEOUT', `Fetching ${redactUrl(url)} took longer than its deadline of ${timeoutMs} ms.`, { details: { url: redactUrl(url), limit: timeoutMs } })),
        timeoutMs,
      )
      // The limits wait within this fetch's deadline, and say when to retry rather than time out.
      const limits = limited
        ? new FetchLimits(state(), siteLimits, { signal: controller.signal, deadline: Math.min(call.deadline ?? Infinity, Date.now() + timeoutMs) }, timeoutMs + (options.extractTimeoutMs ?? 15_000), notes)
        : undefined
      try {
        document = await download(parts, url, request, format, extract, controller.signal, fetchedAt, limits)
      } catch (error) {
        if (controller.signal.aborted && !WebError.is(error)) throw abortError(controller.signal, `Fetching ${redactUrl(url)}`)
        if (controller.signal.aborted && WebError.is(error) && error.code === 'WEB_FETCH_FAILED') throw abortError(controller.signal, `Fetching ${redactUrl(url)}`)
        throw error
      } finally {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        await limits?.close()
      }
      // One snapshot under both URLs: in memory it counts once against the budget and leaves under both.
      await cache.set([url.href, document.finalUrl], variant, document, notes)
    }
    // A hit through the final URL followed no redirect; one through the URL that made the snapshot, the same hops again.
    const redirects = url.href === document.requestedUrl ? document.redirects : []
    // The part, the matches or the passages: all of this one snapshot, so their offsets are those a later call pages by.
    const page = parts.viewPage(document.text, format, window, document.pageStarts)
    let artifact: ArtifactRef | undefined
    if (document.text.length > artifactThreshold) {
      // The file names its URL in its fence: the same bytes at another URL are another file.
      const where = `${document.sourceSha256}|${document.finalUrl}|${format}|${extract}|${call.session?.id ?? options.artifactDir ?? ''}`
      artifact = artifacts.get(where)
      if (!artifact) {
        // The seam's writer: the session's artifacts/ folder, else artifactDir, else a temp folder.
        artifact = await writeWebArtifact(document.text, {
          session: call.session,
          directory: call.session ? undefined : options.artifactDir,
          stem: call.callId ? `web-fetch-${call.callId}` : 'web-fetch',
          extension: EXTENSIONS[format],
          // The page's text: the file holds it fenced, as the model sees it in the result.
          untrustedSource: document.finalUrl,
        })
        rememberArtifact(artifacts, where, artifact)
      }
    }
    const warnings = [...document.warnings, ...notes, ...page.warnings]
    const truncatedReason = document.bodyTruncatedReason ?? page.partNote
    const result: FetchedDocument = {
      providerId: PROVIDER_ID,
      url: document.finalUrl,
      status: document.status,
      contentType: document.contentType,
      format,
      text: page.text,
      offset: page.offset,
      nextOffset: page.nextOffset,
      totalChars: page.totalChars,
      truncated: page.truncated || document.bodyTruncatedReason !== undefined,
      truncatedReason,
      metadata: { ...document.metadata },
      links: document.links.map((link) => ({ ...link })),
      artifact,
      outcome: { ...document.outcome },
      find: page.find,
      query: page.query,
      pages: page.pages,
      provenance: {
        requestedUrl: url.href,
        finalUrl: document.finalUrl,
        redirects: redirects.map((hop) => ({ ...hop, ...(hop.checks ? { checks: [...hop.checks] } : {}) })),
        address: document.address,
        route: document.route,
        proxy: document.proxy,
        checks: [...document.checks],
        status: document.status,
        contentType: document.contentType,
        charset: document.charset,
        bytesRead: document.bytesRead,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        extractor: document.extractor,
        cacheHit,
        sourceSha256: document.sourceSha256,
        // A hit reports when the site was fetched, by whichever process fetched it.
        fetchedAt: document.fetchedAt ?? fetchedAt,
      },
      warnings,
    }
    if (document.status < 200 || document.status > 299) {
      result.error = { code: 'WEB_HTTP_STATUS', message: `The server answered ${document.status}${parts.STATUS_CODES[document.status] ? ` ${parts.STATUS_CODES[document.status]}` : ''}; the text is the page it sent with that status (often an error page, not the content asked for).` }
    }
    for (const key of Object.keys(result) as (keyof FetchedDocument)[]) if (result[key] === undefined) delete result[key]
    for (const key of Object.keys(result.provenance) as (keyof FetchedDocument['provenance'])[]) if (result.provenance[key] === undefined) delete result.provenance[key]
    if (call.session) {
      const provenance = JSON.parse(JSON.stringify(result.provenance)) as JsonValue
      await appendAudit(call.session, result, {
        ...(call.callId ? { callId: call.callId } : {}),
        provenance,
        format,
        extract,
        offset: result.offset,
        totalChars: result.totalChars,
        truncated: result.truncated,
        ...(result.artifact ? { artifact: { path: result.artifact.path, bytes: result.artifact.bytes, sha256: result.artifact.sha256 } } : {}),
      })
    }
    return result
  }

  return {
    id: PROVIDER_ID,
    available: () => true,
    async vet(input: string, vetOptions: { signal?: AbortSignal } = {}) {
      const { url, host, addresses } = await policy.vet(input, vetOptions.signal)
      return { url, host, addresses }
    },
    fetch: fetchDocument,
    async close() {
      ownMemory?.clear()
      artifacts.clear()
      await Promise.all([pool?.close(), agents.destroy()])
    },
  }
}

/** A proxy setting as the cache key holds it: its origin, never its credentials (a setting that does not parse is refused at the first fetch). */
function proxyOrigin(source: ProxySource | undefined): string | null {
  if (!source) return null
  try {
    return parseProxyUrl(source).origin
  } catch {
    return `unparsed ${source.setting}`
  }
}

/** Artifacts remembered at most; the oldest is forgotten first (a later call writes it again). */
const MAX_REMEMBERED_ARTIFACTS = 256

function rememberArtifact(artifacts: Map<string, ArtifactRef>, key: string, artifact: ArtifactRef) {
  artifacts.set(key, artifact)
  if (artifacts.size > MAX_REMEMBERED_ARTIFACTS) artifacts.delete(artifacts.keys().next().value!)
}
