import type { Readable } from 'node:stream'
import type { SecureContext } from 'node:tls'
import type { Dispatcher } from 'undici'
import type { ProxySettings } from 'dsh-host'
import { type HopRoute, WebError, abortError, redactUrl, routeFor } from 'dsh-web'
import type { RedirectHop } from 'dsh-web'
import { type AddressPolicy, type PinnedAgents, type ProxyDispatcher, type VettedDestination, createProxyDispatcher, loadUndici, proxyFailure, transportError } from 'dsh-web-egress'

export interface TransportOptions {
  /** The fetcher's pinned agents, reused while their connections are open (pinned-dispatcher.ts). */
  agents: PinnedAgents
  maxRedirects: number
  userAgent: string
  timeoutMs: number
  /** TLS trust for https hops (operator's extra CAs); Node's default when absent. */
  secureContext?: SecureContext
  /** Where each hop goes: `chooseRoute` over these settings. */
  proxy: ProxySettings
  /** Resolve names locally on the proxy route and refuse non-public answers (default true). */
  resolveLocally: boolean
  /** `user:password` for the proxy, resolved for this fetch. */
  proxyCredential?: string
  /** http targets through a CONNECT tunnel (default) or, when false, as absolute-form requests the proxy forwards. */
  tunnelHttp: boolean
  /** Runs before each hop's request, once the hop is vetted (the limits of its site); its error ends the fetch. */
  beforeRequest?: (url: URL) => Promise<void>
}

/** The last hop's response, its body not yet read. */
export interface FinalResponse {
  url: URL
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Readable
  /** The address connected to, on the direct route. */
  address?: string
  route: HopRoute
  proxy?: string
  checks: string[]
  redirects: RedirectHop[]
  /** Ends the hop's dispatcher on the proxy route (a pinned agent stays with the fetcher); call once the body is read or abandoned. */
  close(): void
}

/** Destroys a stream without an unhandled 'error' event. */
export function discard(stream: Readable) {
  stream.on('error', () => {})
  if (!stream.destroyed) stream.destroy()
}

/** A redirect's body longer than this is cut off, and its connection closed, rather than read. */
export const REDIRECT_DRAIN_BYTES = 64 * 1024
/** ...and so is one that takes longer than this to arrive. */
export const REDIRECT_DRAIN_MS = 1000

/**
 * A redirect's body read to its end and thrown away, so that its kept
 * connection can carry the next hop to the same origin (`/docs` to
 * `/docs/`); destroying the body unread would close it. A body over
 * REDIRECT_DRAIN_BYTES, or slower than REDIRECT_DRAIN_MS, is cut off instead
 * (undici's `dump`), and the connection with it. undici hands a connection
 * to the next request one turn of the event loop after its response ended (a
 * setImmediate, so that a server's close is seen first); the next hop waits
 * that turn, or it would find the connection busy and open another.
 */
async function drainRedirectBody(body: Readable, signal: AbortSignal): Promise<void> {
  const readable = body as Readable & { dump?(options: { limit: number; signal: AbortSignal }): Promise<unknown> }
  if (typeof readable.dump !== 'function') return discard(readable)
  readable.on('error', () => {})
  const drained = await readable.dump({ limit: REDIRECT_DRAIN_BYTES, signal: AbortSignal.any([signal, AbortSignal.timeout(REDIRECT_DRAIN_MS)]) }).then(
    () => readable.readableEnded,
    () => false,
  )
  if (drained) await new Promise((resolve) => setImmediate(resolve))
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

export { header }

/**
 * Where a redirect leads, checked as a first URL is (policy.parse: scheme,
 * form, domain lists), or WEB_REDIRECT_BLOCKED / WEB_BLOCKED_URL saying why
 * it is not followed. `hops` counts this redirect.
 */
function nextHop(
  from: URL,
  location: string,
  status: number,
  hops: number,
  options: { start: URL; maxRedirects: number; policy: AddressPolicy; allowedDomains: string[] | undefined },
): URL {
  let next: URL
  try {
    next = new URL(location, from)
  } catch (cause) {
    throw new WebError('WEB_REDIRECT_BLOCKED', `${redactUrl(from)} redirected to a Location that does not parse.`, { cause, details: { url: redactUrl(from), status } })
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new WebError('WEB_REDIRECT_BLOCKED', `${redactUrl(from)} redirected to the scheme "${next.protocol.slice(0, -1)}"; only http and https are followed.`, {
      details: { url: redactUrl(from), status },
    })
  }
  if (hops > options.maxRedirects) {
    throw new WebError('WEB_REDIRECT_BLOCKED', `Too many redirects: more than ${options.maxRedirects}, starting at ${redactUrl(options.start)}.`, {
      details: { url: redactUrl(options.start), limit: options.maxRedirects },
    })
  }
  try {
    return options.policy.parse(next.href, options.allowedDomains)
  } catch (error) {
    if (WebError.is(error) && (error.code === 'WEB_INVALID_URL' || error.code === 'WEB_BLOCKED_URL')) {
      throw new WebError(error.code === 'WEB_INVALID_URL' ? 'WEB_REDIRECT_BLOCKED' : 'WEB_BLOCKED_URL', `A redirect from ${redactUrl(from)} was refused: ${error.message}`, {
        cause: error,
        details: error.details,
      })
    }
    throw error
  }
}

/**
 * The vetting of a hop; after the first hop, a refusal of the address says
 * it was where a redirect led, and from where (the code stays the
 * address policy's).
 */
async function refusedAsRedirect(vet: () => Promise<VettedDestination>, redirects: RedirectHop[]): Promise<VettedDestination> {
  try {
    return await vet()
  } catch (error) {
    const last = redirects.at(-1)
    if (!last || !WebError.is(error) || (error.code !== 'WEB_BLOCKED_ADDRESS' && error.code !== 'WEB_BLOCKED_URL')) throw error
    throw new WebError(error.code, `A redirect from ${redactUrl(last.url)} (HTTP ${last.status}) was refused: ${error.message}`, {
      cause: error,
      details: { ...error.details, redirectedFrom: redactUrl(last.url) },
    })
  }
}

/** The error of a request sent on a kept-alive connection the server had already closed. */
function isStaleConnection(error: unknown): boolean {
  const code = (error as { code?: string })?.code
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE'
}

/**
 * Step 5 of the address policy: GET the URL and follow redirects by hand.
 * Every hop first takes its route (direct or through a proxy), then is vetted
 * as that route allows: direct hops get every answer checked and a pinned
 * dispatcher (kept by the fetcher, so a hop that vets to the same address
 * reuses its open connection); proxy hops get their host vetted before anything is sent, and a
 * ProxyAgent of their own.
 */
export async function requestFollowingRedirects(
  start: URL,
  policy: AddressPolicy,
  options: TransportOptions,
  signal: AbortSignal,
  allowedDomains: string[] | undefined,
): Promise<FinalResponse> {
  const redirects: RedirectHop[] = []
  let url = start
  for (let hop = 0; ; hop++) {
    // Route first, then the checks that hold for that route, on every hop.
    const route = routeFor(url, options.proxy)
    const timeouts = { connectMs: options.timeoutMs, headersMs: options.timeoutMs, bodyMs: options.timeoutMs }
    let destination: VettedDestination
    let agent: Dispatcher & { destroy(): Promise<void> }
    let address: string | undefined
    let tunnelled: ProxyDispatcher | undefined
    let reused = false
    let release = () => {}
    if (route.kind === 'direct') {
      destination = await refusedAsRedirect(() => policy.vetUrl(url, signal), redirects)
      const pinned = await options.agents.take(destination.host, destination.addresses[0]!, timeouts, options.secureContext)
      agent = pinned.agent
      address = pinned.address.address
      reused = pinned.reused
      release = pinned.release
    } else {
      destination = await refusedAsRedirect(() => policy.vetForProxy(url, { resolveLocally: options.resolveLocally, proxy: route.origin }, signal), redirects)
      tunnelled = await createProxyDispatcher({ url: route.url, credential: options.proxyCredential, tunnelHttp: options.tunnelHttp, setting: route.setting }, timeouts, options.secureContext)
      agent = tunnelled.agent
    }
    const taken = { route: route.kind, ...(route.kind === 'proxy' ? { proxy: route.origin } : {}), checks: destination.checks }
    // A pinned agent is the fetcher's, kept for the next fetch to the same address; a proxy hop's agent is its own.
    const close = tunnelled ? () => void agent.destroy().catch(() => {}) : release
    let response: Dispatcher.ResponseData
    try {
      await options.beforeRequest?.(url)
      const { request } = await loadUndici()
      const send = () =>
        request(url, {
          method: 'GET',
          dispatcher: agent,
          signal,
          headers: {
            'user-agent': options.userAgent,
            accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5',
            'accept-encoding': 'gzip, deflate, br',
            'accept-language': 'en;q=0.9, *;q=0.5',
          },
        })
      try {
        response = await send()
      } catch (error) {
        // A kept connection the server closed while it was idle fails before any answer: the GET is sent once more, on a new connection.
        if (!reused || signal.aborted || !isStaleConnection(error)) throw error
        response = await send()
      }
    } catch (error) {
      close()
      const failed = tunnelled && route.kind === 'proxy' && !signal.aborted && !WebError.is(error) ? proxyFailure(error, tunnelled, url, route) : undefined
      throw failed ?? transportError(error, url, signal)
    }
    const status = response.statusCode
    const headers = response.headers as Record<string, string | string[] | undefined>
    const location = header(headers, 'location')
    if (status >= 300 && status < 400 && status !== 304 && location !== undefined) {
      const body = response.body as unknown as Readable
      redirects.push({ url: url.href, status, location, ...taken })
      let next: URL
      try {
        next = nextHop(url, location, status, redirects.length, { start, maxRedirects: options.maxRedirects, policy, allowedDomains })
      } catch (error) {
        discard(body)
        close()
        throw error
      }
      // Only a hop to the same origin can go over this connection (a proxy hop's agent is destroyed with it).
      if (!tunnelled && next.origin === url.origin) await drainRedirectBody(body, signal)
      else discard(body)
      close()
      url = next
      continue
    }
    return { url, status, headers, body: response.body as unknown as Readable, address, ...taken, redirects, close }
  }
}
