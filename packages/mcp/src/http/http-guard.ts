import type { IncomingMessage, ServerResponse } from 'node:http'
import type { OAuthVerifier } from '../auth/oauth-verifier.js'
import { type TokenCheck, TokenError, type TokenStore } from '../auth/token-store.js'

/**
 * The checks `dsh mcp --http` makes before a request reaches MCP: Host and
 * Origin (DNS rebinding), the bearer token (the body's bounds are in
 * http-body.ts, the connections' in http-connections.ts). Each refusal is
 * an HTTP status with a JSON-RPC error body that says what to change.
 */

export const REALM = 'dsh-mcp'

/** The JSON-RPC error code of the refusals made here (the implementation-defined server-error range). */
export const REFUSED = -32000

export function sendJsonRpcError(res: ServerResponse, status: number, message: string, options: { id?: string | number | null; data?: unknown; headers?: Record<string, string> } = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: options.id ?? null, error: { code: REFUSED, message, ...(options.data === undefined ? {} : { data: options.data }) } })
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store', ...options.headers })
  res.end(body)
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/** `host:port` as a Host header writes it (IPv6 in brackets). */
export function hostWithPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`
}

export interface OriginPolicy {
  /** Host header values (`name` for any port, `name:port` for one), lower case; `*` allows any. */
  hosts: string[]
  /** Origin header values (`scheme://host[:port]`), lower case; `*` allows any. */
  origins: string[]
}

/** The Hosts and Origins a server on `host:port` answers: its own address, the loopback names on a loopback bind, and the operator's. */
export function originPolicy(host: string, port: number, extra: { hosts: string[]; origins: string[] }): OriginPolicy {
  const own = isLoopbackHost(host) ? ['127.0.0.1', 'localhost', '::1'] : host === '0.0.0.0' || host === '::' ? [] : [host]
  const hosts = [...own.map((name) => hostWithPort(name, port)), ...extra.hosts].map((value) => value.toLowerCase())
  const origins = [...own.map((name) => `http://${hostWithPort(name, port)}`), ...extra.origins].map((value) => value.toLowerCase().replace(/\/+$/, ''))
  return { hosts, origins }
}

/** Why the request's Host or Origin is refused, or undefined when both are allowed. */
export function checkOrigin(req: IncomingMessage, policy: OriginPolicy): { status: number; message: string } | undefined {
  const host = (req.headers.host ?? '').toLowerCase()
  const hostName = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]
  if (!policy.hosts.includes('*') && !policy.hosts.includes(host) && !policy.hosts.includes(hostName)) {
    return {
      status: 403,
      message: `Refused: the Host header "${host}" is not one this server answers (${policy.hosts.join(', ') || 'none configured'}). A name the server is reached by is added with dsh mcp --http ... --allowed-host NAME; this check stops DNS rebinding.`,
    }
  }
  const origin = req.headers.origin
  if (origin !== undefined && !policy.origins.includes('*') && !policy.origins.includes(origin.toLowerCase())) {
    return {
      status: 403,
      message: `Refused: requests from the web origin "${origin}" are not allowed (allowed: ${policy.origins.join(', ') || 'none'}). An origin is added with dsh mcp --http ... --allowed-origin ORIGIN; this check stops web pages from calling the tools.`,
    }
  }
  return undefined
}

/** Who may call: bearer tokens from the store (`dsh_...`) and, when configured, JWTs of an OAuth authorization server. */
export interface Authenticator {
  tokens: TokenStore
  oauth?: OAuthVerifier
  /** Where a refusal that is the server's fault (the token store does not answer) is logged. */
  log?(text: string): void
}

/** What a 503 for a token store that does not answer asks the client to wait (Retry-After). */
export const TOKEN_STORE_RETRY_SECONDS = 5

/** The caller's name (a token's name, or `oauth:` and a JWT's subject), or undefined when the 401 answer was sent. */
export async function authenticate(req: IncomingMessage, res: ServerResponse, auth: Authenticator): Promise<string | undefined> {
  const header = req.headers.authorization
  const match = header ? /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header) : null
  const metadata = auth.oauth ? `, resource_metadata="${auth.oauth.metadataUrl()}"` : ''
  if (!header) {
    unauthorised(res, `Bearer realm="${REALM}"${metadata}`, `Refused: this server needs a bearer token (Authorization: Bearer TOKEN). The operator creates one with dsh mcp token create NAME${auth.oauth ? `, or the client gets one from ${auth.oauth.settings.issuer}` : ''}.`)
    return undefined
  }
  if (!match) {
    unauthorised(res, `Bearer realm="${REALM}", error="invalid_request", error_description="malformed Authorization header"${metadata}`, 'Refused: the Authorization header is not "Bearer TOKEN".')
    return undefined
  }
  const token = match[1]
  if (auth.oauth && !token.startsWith('dsh_')) {
    const check = await auth.oauth.check(token)
    if (check.ok) return check.name
    unauthorised(res, `Bearer realm="${REALM}", error="invalid_token", error_description="${check.reason.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?')}"${metadata}`, `Refused: the access token is not accepted: ${check.reason}.`)
    return undefined
  }
  let check: TokenCheck
  try {
    check = await auth.tokens.check(token)
  } catch (error) {
    if (!(error instanceof TokenError && error.code === 'MCP_TOKEN_STORE_UNAVAILABLE')) throw error
    // Fail closed: a token that cannot be checked now may have been revoked.
    const message = `Refused: the token cannot be checked now, so the request was not run. ${error.message}`
    auth.log?.(`dsh mcp: ${message}`)
    sendJsonRpcError(res, 503, message, { data: { code: error.code, store: auth.tokens.describe() }, headers: { 'retry-after': String(TOKEN_STORE_RETRY_SECONDS) } })
    return undefined
  }
  if (check.ok) return check.name
  const said = {
    unknown: 'the token is not known here (mistyped, or never created with dsh mcp token create)',
    expired: `the token "${check.name}" has expired; the operator creates a new one with dsh mcp token create`,
    revoked: `the token "${check.name}" was revoked`,
  }[check.reason]
  unauthorised(res, `Bearer realm="${REALM}", error="invalid_token", error_description="${check.reason === 'unknown' ? 'unknown token' : `token ${check.reason}`}"${metadata}`, `Refused: ${said}.`)
  return undefined
}

function unauthorised(res: ServerResponse, challenge: string, message: string): void {
  sendJsonRpcError(res, 401, message, { headers: { 'www-authenticate': challenge } })
}
