/**
 * The one route decision of every outgoing request: does a request go direct or
 * through an HTTP proxy? Read from HTTPS_PROXY, HTTP_PROXY and NO_PROXY (and
 * their lower-case forms) with exactly the precedence and NO_PROXY matching
 * of undici's EnvHttpProxyAgent (hosts and entries compared in their
 * canonical form, host-name.ts), or from a provider row's `proxy` section,
 * which overrides them. Pure: no undici, no network; each provider builds
 * its own dispatcher for the route chosen here, so the route it reports and
 * the one it takes can never differ.
 */
import { CodedError, type CodedErrorOptions } from './errors.js'
import { canonicalHost } from './host-name.js'

/** A proxy setting that is not an http(s) proxy URL; the seam reports it as INVALID_ARGUMENT. */
export class ProxySettingError extends CodedError<'INVALID_ARGUMENT'> {
  constructor(message: string, options: CodedErrorOptions = {}) {
    super('INVALID_ARGUMENT', message, options)
    this.name = 'ProxySettingError'
  }

  static override is(value: unknown): value is ProxySettingError {
    return CodedError.is(value) && (value as Error).name === 'ProxySettingError'
  }
}

/** A proxy URL and the setting it came from, named in messages. */
export interface ProxySource {
  /** As configured: may hold `user:password@`; never shown. */
  url: string
  /** `proxy.url`, `https_proxy`, `HTTPS_PROXY`, `http_proxy` or `HTTP_PROXY`. */
  setting: string
}

export interface ProxySettings {
  /** For http targets, and https ones when `httpsProxy` is absent. */
  httpProxy?: ProxySource
  httpsProxy?: ProxySource
  /** The NO_PROXY value as undici reads it: entries split on commas and white space. */
  noProxy: string
  /** Where `noProxy` came from: `proxy.noProxy`, `no_proxy`, `NO_PROXY` or none. */
  noProxySetting?: string
}

/** A row's `proxy` section, the parts that decide the route. */
export interface ProxyOverride {
  /** The proxy for every target, instead of the environment's. */
  url?: string
  /** Replaces NO_PROXY; `['*']` sends everything direct. */
  noProxy?: string[]
}

export type Route =
  | { kind: 'direct'; why: 'no proxy is configured' | 'NO_PROXY' }
  | {
      kind: 'proxy'
      /** The proxy URL to dispatch to, credentials included when configured so. */
      url: URL
      /** The proxy's origin, without credentials: what messages and records show. */
      origin: string
      /** The setting to change to use another proxy. */
      setting: string
    }

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 }

type Env = Record<string, string | undefined>

/** The first of `names` that is set (`??`: an empty value set in lower case hides the upper-case one, as in undici). */
function firstSet(env: Env, names: string[]): ProxySource | undefined {
  for (const name of names) {
    const value = env[name]
    if (value !== undefined && value !== null) return value ? { url: value, setting: name } : undefined
  }
  return undefined
}

/**
 * The settings in effect: the row's `proxy` section where it says something,
 * else the environment as EnvHttpProxyAgent reads it (`http_proxy` before
 * `HTTP_PROXY`; https targets use `https_proxy`, `HTTPS_PROXY`, then the http
 * proxy; `no_proxy` before `NO_PROXY`).
 */
export function readProxySettings(env: Env = process.env, override: ProxyOverride = {}): ProxySettings {
  const fromRow = override.url ? { url: override.url, setting: 'proxy.url' } : undefined
  const httpProxy = fromRow ?? firstSet(env, ['http_proxy', 'HTTP_PROXY'])
  const httpsProxy = fromRow ?? firstSet(env, ['https_proxy', 'HTTPS_PROXY']) ?? httpProxy
  if (override.noProxy !== undefined) return { httpProxy, httpsProxy, noProxy: override.noProxy.join(','), noProxySetting: 'proxy.noProxy' }
  const setting = env.no_proxy !== undefined ? 'no_proxy' : env.NO_PROXY !== undefined ? 'NO_PROXY' : undefined
  return { httpProxy, httpsProxy, noProxy: (setting ? env[setting] : '') ?? '', ...(setting ? { noProxySetting: setting } : {}) }
}

interface NoProxyEntry {
  hostname: string
  port: number
}

/** NO_PROXY as undici parses it: split on commas and spaces, `host:port`, a leading `.` or `*.` stripped. */
function parseNoProxy(value: string): NoProxyEntry[] {
  const entries: NoProxyEntry[] = []
  for (const entry of value.split(/[,\s]/)) {
    if (!entry) continue
    const parsed = entry.match(/^(.+):(\d+)$/)
    const written = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '')
    entries.push({ hostname: canonicalEntry(written), port: parsed ? Number.parseInt(parsed[2]!, 10) : 0 })
  }
  return entries
}

/**
 * A NO_PROXY entry's host in the canonical form URLs are compared in (a
 * trailing dot, case, Unicode and IPv4 spellings do not change its meaning);
 * one with no canonical form is kept lower-cased and can only match a URL
 * that is refused anyway.
 */
function canonicalEntry(written: string): string {
  try {
    return canonicalHost(written)
  } catch {
    return written.toLowerCase()
  }
}

/**
 * Whether a NO_PROXY value sends this URL through the proxy (undici's
 * #shouldProxy, over the canonical host: IPv6 in brackets). A host without a
 * canonical form throws HostNameError: callers canonicalise a hop's URL
 * before they route it.
 */
export function shouldProxy(url: URL, noProxy: string): boolean {
  const hostname = canonicalHost(url.hostname)
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0
  const entries = parseNoProxy(noProxy)
  if (entries.length === 0) return true
  if (noProxy === '*') return false
  for (const entry of entries) {
    if (entry.port && entry.port !== port) continue
    if (hostname === entry.hostname) return false
    if (hostname.slice(-(entry.hostname.length + 1)) === `.${entry.hostname}`) return false
  }
  return true
}

/** A proxy URL that undici can dispatch to: http or https, with a host. INVALID_ARGUMENT naming the setting otherwise. */
export function parseProxyUrl(source: ProxySource): URL {
  let url: URL | undefined
  try {
    url = new URL(source.url)
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new ProxySettingError(`${source.setting} is not an http or https proxy URL; write it as http://HOST:PORT (got ${JSON.stringify(redactProxy(source.url))}).`, {
      details: { argument: source.setting },
    })
  }
  return url
}

/** A proxy value fit for a message: anything before an `@` (user:password, however written) hidden. */
export function redactProxy(value: string): string {
  const shown = value.includes('@') ? value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?.*@/is, '$1<credentials>@') : value
  return shown.length > 120 ? `${shown.slice(0, 120)}…` : shown
}

/** The route of one request: direct, or through which proxy. */
export function chooseRoute(url: URL, settings: ProxySettings): Route {
  const source = url.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy
  if (!source) return { kind: 'direct', why: 'no proxy is configured' }
  if (!shouldProxy(url, settings.noProxy)) return { kind: 'direct', why: 'NO_PROXY' }
  const proxy = parseProxyUrl(source)
  return { kind: 'proxy', url: proxy, origin: proxy.origin, setting: source.setting }
}

/**
 * Tunnel attempts (CONNECTs) one request makes through a proxy at most. undici
 * opens a new tunnel at once whenever the proxy closes one without answering
 * (it takes that for a stale connection), so a proxy that accepts and closes
 * would get tens of thousands of CONNECTs from one call; after this many
 * failures in a row, the request fails instead.
 */
export const PROXY_TUNNEL_ATTEMPTS = 2

/**
 * `connect` (a proxy pool's CONNECT) bounded to `limit` failures in a row:
 * the failures before the last are rethrown as they are (undici may try
 * again), the last is replaced by `exhausted(attempts, error)`, whose error
 * undici hands to the waiting request instead of reconnecting. A success
 * starts the count again, and so does the exhausted failure (for the next
 * request on a shared agent).
 */
export function boundTunnelAttempts<Params, Answer>(
  connect: (params: Params) => Promise<Answer>,
  exhausted: (attempts: number, error: unknown, params: Params) => Error,
  limit = PROXY_TUNNEL_ATTEMPTS,
): (params: Params) => Promise<Answer> {
  let failures = 0
  return async (params) => {
    try {
      const answer = await connect(params)
      failures = 0
      return answer
    } catch (error) {
      if (++failures < limit) throw error
      failures = 0
      throw exhausted(limit, error, params)
    }
  }
}

/** What a proxy did when a tunnel failed, in words: "closed the connection without answering the CONNECT". */
export function describeTunnelFailure(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') return 'closed the connection without answering the CONNECT'
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return 'did not answer the CONNECT in time'
  return `failed the CONNECT (${typeof code === 'string' ? code : ((error as Error)?.message ?? String(error)).slice(0, 120)})`
}
