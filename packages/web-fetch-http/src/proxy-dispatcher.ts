import type { SecureContext } from 'node:tls'
import { type Dispatcher, Pool, ProxyAgent } from 'undici'
import { WebError, redactUrl } from 'dsh-web'

/**
 * The dispatcher of one hop on the proxy route: an undici ProxyAgent that
 * opens a CONNECT tunnel through the proxy for every target, http ones
 * included (undici's default, so the proxy sees `host:port` and never the
 * path or headers of an https request). Certificates of https targets are
 * verified against the URL's host name, always. The tunnel's fate is kept
 * so that a failure can be told apart: the proxy down or refusing the
 * tunnel (WEB_PROXY_FAILED) or the target failing inside it.
 */
export interface ProxyDispatcher {
  agent: ProxyAgent
  /** Set once the proxy answered the CONNECT; `error` when it could not be reached. */
  tunnel: { status?: number; error?: unknown }
}

export interface ProxyHop {
  /** The proxy URL; `user:password@` in it is sent as Basic Proxy-Authorization. */
  url: URL
  /** `user:password` from the row's proxy.credential, sent as Basic Proxy-Authorization. */
  credential?: string
}

export function createProxyDispatcher(
  proxy: ProxyHop,
  timeouts: { connectMs: number; headersMs: number; bodyMs: number },
  secureContext?: SecureContext,
): ProxyDispatcher {
  const tunnel: ProxyDispatcher['tunnel'] = {}
  const clientFactory = (origin: URL, options: object): Dispatcher => {
    const pool = new Pool(origin, options)
    const connect = pool.connect.bind(pool) as (params: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>
    ;(pool as { connect: unknown }).connect = async (params: Dispatcher.ConnectOptions) => {
      try {
        const answer = await connect(params)
        tunnel.status = answer.statusCode
        return answer
      } catch (error) {
        tunnel.error = error
        throw error
      }
    }
    return pool
  }
  const agent = new ProxyAgent({
    uri: proxy.url.href,
    ...(proxy.credential ? { token: `Basic ${Buffer.from(proxy.credential, 'utf8').toString('base64')}` } : {}),
    clientFactory,
    proxyTls: { timeout: timeouts.connectMs },
    requestTls: { rejectUnauthorized: true, timeout: timeouts.connectMs, ...(secureContext ? { secureContext } : {}) },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    connections: 1,
    pipelining: 1,
  } as ProxyAgent.Options)
  return { agent, tunnel }
}

/** The WEB_PROXY_FAILED of a hop whose proxy could not be reached or refused the tunnel; undefined when the proxy did its part. */
export function proxyFailure(error: unknown, dispatcher: ProxyDispatcher, url: URL, proxy: { origin: string; setting: string }): WebError | undefined {
  const { tunnel } = dispatcher
  const change = `check that it runs, or change ${proxy.setting === 'proxy.url' ? 'proxy.url in the web-fetch-http row' : `the environment variable ${proxy.setting}`} (proxy.noProxy or NO_PROXY sends a host direct)`
  const details = { url: redactUrl(url), proxy: proxy.origin }
  if (tunnel.error !== undefined || (tunnel.status === undefined && isConnectError(error))) {
    const cause = tunnel.error ?? error
    const code = (cause as { code?: string })?.code
    return new WebError('WEB_PROXY_FAILED', `The proxy ${proxy.origin} could not be reached${code ? ` (${code})` : ''} to fetch ${redactUrl(url)}; ${change}.`, {
      cause,
      details,
      retryable: true,
    })
  }
  if (tunnel.status !== undefined && tunnel.status !== 200) {
    const why = tunnel.status === 407 || tunnel.status === 401 ? `refused the credentials or asked for them (${tunnel.status}); set proxy.credential in the web-fetch-http row, or the user:password in the proxy URL` : `refused the tunnel with ${tunnel.status}`
    return new WebError('WEB_PROXY_FAILED', `The proxy ${proxy.origin} ${why} for ${url.host}; ${change}.`, {
      cause: error,
      details: { ...details, status: tunnel.status },
    })
  }
  return undefined
}

/** Errors of opening a socket, before any tunnel: the only socket the proxy route opens itself is to the proxy. */
function isConnectError(error: unknown): boolean {
  const code = (error as { code?: string })?.code
  return ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'].includes(code ?? '')
}
