import type { SecureContext } from 'node:tls'
import type { Dispatcher, ProxyAgent } from 'undici'
import { boundTunnelAttempts, describeTunnelFailure } from 'dsh-host'
import { WebError, redactUrl } from 'dsh-web'
import { loadUndici } from './lazy-undici.js'

/**
 * The dispatcher of one hop on the proxy route: an undici ProxyAgent that
 * opens a CONNECT tunnel through the proxy for every https target, and for
 * http ones too unless `tunnelHttp` is false (then the proxy gets the
 * absolute-form request, `GET http://host/path`, as proxies that allow
 * CONNECT to port 443 only want it). Certificates of https targets are
 * verified against the URL's host name, always. The tunnel's fate is kept
 * so that a failure can be told apart: the proxy down or refusing the
 * tunnel (WEB_PROXY_FAILED) or the target failing inside it. The family's
 * one proxy-agent builder: the fetch providers' hops and the provider kit's
 * model-API client both make theirs here.
 */
export interface ProxyDispatcher {
  agent: ProxyAgent
  /** Set once the proxy answered the CONNECT; `error` when it could not be reached. */
  tunnel: { status?: number; error?: unknown }
  tunnelHttp: boolean
}

export interface ProxyHop {
  /** The proxy URL; `user:password@` in it is sent as Basic Proxy-Authorization. */
  url: URL
  /** `user:password` from the row's proxy.credential, sent as Basic Proxy-Authorization. */
  credential?: string
  /** Tunnel http targets too (default true); false sends them in absolute form. */
  tunnelHttp?: boolean
  /** The setting the proxy came from (proxy.url, HTTPS_PROXY, ...), named in a failure. */
  setting: string
}

/** Bounds of one hop's connections; a bound left out is undici's own. */
export interface ProxyTimeouts {
  connectMs: number
  headersMs?: number
  bodyMs?: number
}

/** What sets a model-API client's hop apart from a fetch hop. */
export interface ProxyDispatcherOptions {
  /**
   * At most this many connections per target, each request in turn on it:
   * 1 for a fetch hop (the default), undefined for undici's own (the kit's
   * model-API client, whose searches run side by side).
   */
  connections?: number | undefined
  /**
   * What a pool throws once its tunnels failed PROXY_TUNNEL_ATTEMPTS times in a
   * row (`authority` is the CONNECT target); by default the fetch hop's
   * WEB_PROXY_FAILED naming the proxy and the target.
   */
  gaveUp?: (attempts: number, error: unknown, authority: string) => Error
}

/** Whether a request to `url` goes through a CONNECT tunnel. */
export function tunnels(url: URL, tunnelHttp: boolean): boolean {
  return url.protocol === 'https:' || tunnelHttp
}

export async function createProxyDispatcher(proxy: ProxyHop, timeouts: ProxyTimeouts, secureContext?: SecureContext, options: ProxyDispatcherOptions = {}): Promise<ProxyDispatcher> {
  const undici = await loadUndici()
  const tunnel: ProxyDispatcher['tunnel'] = {}
  const connections = 'connections' in options ? options.connections : 1
  const gaveUp = options.gaveUp ?? ((attempts: number, error: unknown, authority: string) => tunnelGaveUp(proxy, attempts, error, authority))
  const clientFactory = (origin: URL, poolOptions: object): Dispatcher => {
    const pool = new undici.Pool(origin, poolOptions)
    const connect = pool.connect.bind(pool) as (params: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>
    const tracked = async (params: Dispatcher.ConnectOptions) => {
      try {
        const answer = await connect(params)
        tunnel.status = answer.statusCode
        return answer
      } catch (error) {
        tunnel.error = error
        throw error
      }
    }
    // Bounded: a proxy that closes each tunnel unanswered would otherwise be sent a new CONNECT at once, without end.
    ;(pool as { connect: unknown }).connect = boundTunnelAttempts(tracked, (attempts, error, params) => gaveUp(attempts, error, String(params.path ?? '')))
    return pool
  }
  const agent = new undici.ProxyAgent({
    uri: proxy.url.href,
    ...(proxy.credential ? { token: `Basic ${Buffer.from(proxy.credential, 'utf8').toString('base64')}` } : {}),
    clientFactory,
    proxyTunnel: proxy.tunnelHttp ?? true,
    proxyTls: { timeout: timeouts.connectMs },
    requestTls: { rejectUnauthorized: true, timeout: timeouts.connectMs, ...(secureContext ? { secureContext } : {}) },
    ...(timeouts.headersMs === undefined ? {} : { headersTimeout: timeouts.headersMs }),
    ...(timeouts.bodyMs === undefined ? {} : { bodyTimeout: timeouts.bodyMs }),
    ...(connections === undefined ? {} : { connections, pipelining: 1 }),
  } as ProxyAgent.Options)
  return { agent, tunnel, tunnelHttp: proxy.tunnelHttp ?? true }
}

/** The WEB_PROXY_FAILED of a hop whose tunnels all failed: the proxy (its origin, never its credentials), what it did, and how often. */
function tunnelGaveUp(proxy: ProxyHop, attempts: number, error: unknown, authority: string): WebError {
  const origin = proxy.url.origin
  return new WebError('WEB_PROXY_FAILED', `The proxy ${origin} ${describeTunnelFailure(error)} for ${authority || 'the target'}, ${attempts} times in a row; it is not tried again for this call: ${changeAdvice(proxy)}.`, {
    cause: error,
    details: { proxy: origin, target: authority, attempts },
    retryable: true,
  })
}

/** The WEB_PROXY_FAILED of a hop whose proxy could not be reached or refused the tunnel; undefined when the proxy did its part. */
export function proxyFailure(error: unknown, dispatcher: ProxyDispatcher, url: URL, proxy: { origin: string; setting: string }): WebError | undefined {
  const { tunnel } = dispatcher
  // Without a tunnel the proxy answers for itself; undici turns its 407 into an error of this shape.
  const { code, message } = (error ?? {}) as { code?: string; message?: unknown }
  if (!tunnels(url, dispatcher.tunnelHttp) && code === 'UND_ERR_INVALID_ARG' && /\(407\)/.test(String(message))) return proxyRefusal(407, url, proxy, error)
  const change = changeAdvice(proxy)
  const details = { url: redactUrl(url), proxy: proxy.origin }
  // Without a tunnel the only peer is the proxy: a connection it closed before any answer is its failure (undici sends the request once).
  if (!tunnels(url, dispatcher.tunnelHttp) && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET')) {
    return new WebError('WEB_PROXY_FAILED', `The proxy ${proxy.origin} closed the connection without answering the request for ${redactUrl(url)}; ${change}.`, { cause: error, details, retryable: true })
  }
  if (tunnel.error !== undefined || (tunnel.status === undefined && isConnectError(error))) {
    const cause = tunnel.error ?? error
    const code = (cause as { code?: string })?.code
    if (code && TLS_REFUSED.test(code)) {
      return new WebError('WEB_PROXY_FAILED', `The proxy ${proxy.origin} presented a TLS certificate that was not accepted (${code}) when fetching ${redactUrl(url)}: an https:// proxy needs a certificate for its host name from a CA this process trusts (NODE_EXTRA_CA_CERTS=FILE adds one at start), or write the proxy as http:// if it takes plain connections; nothing was sent through it.`, {
        cause,
        details,
      })
    }
    return new WebError('WEB_PROXY_FAILED', `The proxy ${proxy.origin} could not be reached${code ? ` (${code})` : ''} to fetch ${redactUrl(url)}; ${change}.`, {
      cause,
      details,
      retryable: true,
    })
  }
  if (tunnel.status !== undefined && tunnel.status !== 200) return proxyRefusal(tunnel.status, url, proxy, error)
  return undefined
}

/** The WEB_PROXY_FAILED of a proxy that answered for itself: a refused tunnel, or a 407 to an absolute-form request. */
export function proxyRefusal(status: number, url: URL, proxy: { origin: string; setting: string }, cause?: unknown): WebError {
  let why: string
  if (status === 407 || status === 401) why = `refused the credentials or asked for them (${status}); set proxy.credential in the web-fetch-http row, or the user:password in the proxy URL`
  else if (url.protocol === 'http:') why = `refused the tunnel with ${status} for the http target ${url.host} (many proxies allow CONNECT to port 443 only; proxy.tunnelHttp: false in the web-fetch-http row sends http targets as plain proxied requests)`
  else why = `refused the tunnel with ${status} for ${url.host}`
  return new WebError('WEB_PROXY_FAILED', `The proxy ${proxy.origin} ${why}; ${changeAdvice(proxy)}.`, {
    cause,
    details: { url: redactUrl(url), proxy: proxy.origin, status },
  })
}

function changeAdvice(proxy: { setting: string }): string {
  return `check that it runs, or change ${proxy.setting === 'proxy.url' ? 'proxy.url in the web-fetch-http row' : `the environment variable ${proxy.setting}`} (proxy.noProxy or NO_PROXY sends a host direct)`
}

/** Node's and OpenSSL's codes for a peer certificate refused in the TLS handshake (here: an https:// proxy's own). */
const TLS_REFUSED = /^(CERT_|UNABLE_TO_(GET|VERIFY)_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|ERR_TLS_CERT_ALTNAME_INVALID$)/

/** Errors of opening a socket, before any tunnel: the only socket the proxy route opens itself is to the proxy. */
function isConnectError(error: unknown): boolean {
  const code = (error as { code?: string })?.code
  return ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'].includes(code ?? '')
}
