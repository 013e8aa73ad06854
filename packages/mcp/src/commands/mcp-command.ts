import { boot, defaultHome, withholdToolsWithoutProvider } from 'dsh-harness'
import { type GlobalOptions, type Output, UsageError } from 'dsh-harness/cli'
import { DEFAULT_HTTP_CALLS_PER_MINUTE, DEFAULT_HTTP_MAX_CONCURRENT_CALLS } from '../call-limits.js'
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_JSON_DEPTH } from '../http/http-body.js'
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PENDING_CONNECTIONS } from '../http/http-connections.js'
import { isLoopbackHost } from '../http/http-guard.js'
import type { OAuthSettings } from '../auth/oauth-verifier.js'
import { selectTokenStore } from '../auth/select-token-store.js'
import type { TokenStore } from '../auth/token-store.js'

export interface McpFlags {
  /** `--max-message-bytes N` as given (stdio). */
  maxMessageBytes?: string
  /** `--max-concurrent-calls N` as given. */
  maxConcurrentCalls?: string
  /** `--http [HOST:]PORT`: serve over Streamable HTTP instead of stdio. */
  http?: string
  noAuth?: boolean
  allowedHost?: string[]
  allowedOrigin?: string[]
  maxBodyBytes?: string
  maxJsonDepth?: string
  maxConnections?: string
  maxPendingConnections?: string
  headersTimeout?: string
  callsPerMinute?: string
  oauthIssuer?: string
  oauthAudience?: string
  oauthJwksUrl?: string
}

/** Flags of one transport only, named as on the command line. */
const HTTP_ONLY: Array<[keyof McpFlags, string]> = [
  ['noAuth', '--no-auth'], ['allowedHost', '--allowed-host'], ['allowedOrigin', '--allowed-origin'], ['maxBodyBytes', '--max-body-bytes'],
  ['maxJsonDepth', '--max-json-depth'], ['maxConnections', '--max-connections'], ['maxPendingConnections', '--max-pending-connections'], ['headersTimeout', '--headers-timeout'],
  ['callsPerMinute', '--calls-per-minute'], ['oauthIssuer', '--oauth-issuer'], ['oauthAudience', '--oauth-audience'], ['oauthJwksUrl', '--oauth-jwks-url'],
]

/**
 * Boots for serving: stops on a row that did not start (unless
 * --allow-failed-rows), and never offers a tool whose provider is missing.
 */
async function bootToServe(options: GlobalOptions, io: Output) {
  const composition = await boot(options, io, { prefix: 'dsh mcp' })
  withholdToolsWithoutProvider(composition, (text) => io.err(`dsh mcp: warning: ${text}`))
  return composition
}

// The MCP SDK (and zod with it) is loaded by the commands that serve, not by every dsh command.
export async function runMcp(options: GlobalOptions, io: Output, flags: McpFlags = {}): Promise<number> {
  if (flags.http !== undefined) return runMcpHttp(options, io, flags)
  const given = HTTP_ONLY.find(([key]) => flags[key] !== undefined && flags[key] !== false && !(Array.isArray(flags[key]) && !(flags[key] as unknown[]).length))
  if (given) throw new UsageError(`${given[1]} goes with dsh mcp --http [HOST:]PORT.`)
  const { DEFAULT_MAX_CONCURRENT_CALLS, serveMcp } = await import('../mcp-server.js')
  const { DEFAULT_MAX_MESSAGE_BYTES } = await import('../stdio/stdio-transport.js')
  const maxMessageBytes = whole(flags.maxMessageBytes, '--max-message-bytes', 1024, DEFAULT_MAX_MESSAGE_BYTES)
  const maxConcurrentCalls = whole(flags.maxConcurrentCalls, '--max-concurrent-calls', 1, DEFAULT_MAX_CONCURRENT_CALLS)
  const composition = await bootToServe(options, io)
  try {
    await serveMcp({ ctx: composition.ctx, log: io.err, maxMessageBytes, maxConcurrentCalls })
    return 0
  } finally {
    await composition.dispose()
  }
}

/** `dsh mcp --http ...`. */
async function runMcpHttp(options: GlobalOptions, io: Output, flags: McpFlags): Promise<number> {
  if (flags.maxMessageBytes !== undefined) throw new UsageError('--max-message-bytes goes with dsh mcp on stdio; over HTTP the limit is --max-body-bytes.')
  const { host, port } = parseListen(flags.http ?? '')
  const noAuth = !!flags.noAuth
  if (noAuth && !isLoopbackHost(host)) {
    throw new UsageError(`--no-auth is accepted only on a loopback address (127.0.0.1, ::1, localhost), not on ${host}: anyone who can reach ${host} could call the tools. Create a token instead: dsh mcp token create NAME.`)
  }
  const oauth = oauthSettings(flags.oauthIssuer, flags.oauthAudience, flags.oauthJwksUrl)
  if (noAuth && oauth) throw new UsageError('--no-auth and --oauth-issuer contradict each other: choose one.')
  const allowedHosts = flags.allowedHost ?? []
  if (!isLoopbackHost(host) && !allowedHosts.length) {
    throw new UsageError(`On ${host}, say which Host names clients (or the load balancer) use to reach this server: --allowed-host NAME (repeatable; '*' when the load balancer checks Host itself).`)
  }
  const limits = {
    maxBodyBytes: whole(flags.maxBodyBytes, '--max-body-bytes', 1024, DEFAULT_MAX_BODY_BYTES),
    maxConcurrentCalls: whole(flags.maxConcurrentCalls, '--max-concurrent-calls', 1, DEFAULT_HTTP_MAX_CONCURRENT_CALLS),
    callsPerMinute: whole(flags.callsPerMinute, '--calls-per-minute', 1, DEFAULT_HTTP_CALLS_PER_MINUTE),
    maxJsonDepth: whole(flags.maxJsonDepth, '--max-json-depth', 8, DEFAULT_MAX_JSON_DEPTH),
    maxConnections: whole(flags.maxConnections, '--max-connections', 2, DEFAULT_MAX_CONNECTIONS),
    maxPendingConnections: whole(flags.maxPendingConnections, '--max-pending-connections', 1, DEFAULT_MAX_PENDING_CONNECTIONS),
    headersTimeoutMs: whole(flags.headersTimeout, '--headers-timeout', 100, DEFAULT_HEADERS_TIMEOUT_MS),
  }
  if (limits.maxPendingConnections >= limits.maxConnections) {
    throw new UsageError(`--max-pending-connections (${limits.maxPendingConnections}) must be less than --max-connections (${limits.maxConnections}): the difference is the room kept for clients with a valid token.`)
  }
  const composition = await bootToServe(options, io)
  try {
    const [{ mcpServices }, { McpHttpServer }, { OAuthVerifier }] = await Promise.all([import('../mcp-server.js'), import('../http/http-server.js'), import('../auth/oauth-verifier.js')])
    const { tools, sessions } = mcpServices(composition.ctx)
    const tokens = noAuth ? null : selectTokenStore(composition.ctx.get('stateStore'), defaultHome())
    const auth = tokens ? { tokens, log: io.err, ...(oauth ? { oauth: new OAuthVerifier(oauth) } : {}) } : null
    const server = new McpHttpServer({ tools, sessions, ctx: composition.ctx, host, port, auth, limits, allowedHosts, allowedOrigins: flags.allowedOrigin ?? [], log: io.err })
    if (tokens) io.err(`dsh mcp: tokens are checked at every request in ${tokens.describe()}`)
    const address = await server.listen()
    if (noAuth) io.err(`dsh mcp: warning: authentication is off (--no-auth): any process on this machine can call the tools at ${address}.`)
    io.err(`dsh mcp: serving ${tools.roster().length} tool(s) over Streamable HTTP (stateless) at ${address}; limits per token and process: ${limits.maxConcurrentCalls} calls at once, ${limits.callsPerMinute} calls a minute, ${limits.maxBodyBytes} bytes and ${limits.maxJsonDepth} levels of JSON per request; ${limits.maxConnections} connections, ${limits.maxPendingConnections} of them without a valid token, ${limits.headersTimeoutMs} ms for a request head`)
    if (oauth) io.err(`dsh mcp: also accepting access tokens (JWT) of ${oauth.issuer} for the resource ${oauth.audience}`)
    else if (tokens) await warnWithoutTokens(tokens, io)
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    io.err('dsh mcp: shutting down')
    await server.close()
    return 0
  } finally {
    await composition.dispose()
  }
}

/** Said at start: no token to accept yet, or a store that does not answer (every request is refused until it does). */
async function warnWithoutTokens(tokens: TokenStore, io: Output): Promise<void> {
  try {
    if (!(await tokens.list()).some((token) => !token.revoked)) io.err('dsh mcp: no token exists yet: every request is refused until you create one with dsh mcp token create NAME (with the same --preset and --config).')
  } catch (error) {
    io.err(`dsh mcp: warning: ${(error as Error)?.message ?? error} Until the store answers, every request is refused with 503.`)
  }
}

function oauthSettings(issuer: string | undefined, audience: string | undefined, jwksUrl: string | undefined): OAuthSettings | undefined {
  if (issuer === undefined && audience === undefined && jwksUrl === undefined) return undefined
  if (!issuer || !audience) throw new UsageError('OAuth access tokens need both --oauth-issuer URL (the authorization server) and --oauth-audience URI (this server\'s resource identifier, e.g. https://tools.example.com/mcp).')
  for (const [flag, value] of [['--oauth-issuer', issuer], ['--oauth-audience', audience], ['--oauth-jwks-url', jwksUrl]] as const) {
    if (value !== undefined && !URL.canParse(value)) throw new UsageError(`${flag} takes an absolute URL, not "${value}".`)
  }
  return { issuer, audience, jwksUrl }
}

/** `PORT`, `HOST:PORT` or `[IPV6]:PORT`; the host defaults to 127.0.0.1. */
function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text)
  const port = match ? Number(match[2]) : NaN
  if (!match || port > 65535) throw new UsageError(`--http takes [HOST:]PORT, like 8080, 127.0.0.1:8080 or [::1]:8080, not "${text}".`)
  const host = match[1] ? match[1].replace(/^\[|\]$/g, '') : '127.0.0.1'
  return { host, port }
}

function whole(text: string | undefined, flag: string, minimum: number, fallback: number): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < minimum) {
    throw new UsageError(`${flag} takes a whole number of at least ${minimum}, not "${text}" (default ${fallback}).`)
  }
  return value
}
