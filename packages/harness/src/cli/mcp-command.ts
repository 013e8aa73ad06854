import { parseArgs } from 'node:util'
import { compose } from '../compose/boot.js'
import { defaultHome } from '../home.js'
import { DEFAULT_HTTP_CALLS_PER_MINUTE, DEFAULT_HTTP_MAX_CONCURRENT_CALLS } from '../mcp/call-limits.js'
import { DEFAULT_MAX_BODY_BYTES, isLoopbackHost } from '../mcp/http-guard.js'
import type { OAuthSettings } from '../mcp/oauth-verifier.js'
import { FileTokenStore } from '../mcp/token-store.js'
import { findConfigDir, type GlobalOptions, type Output, printWarnings, UsageError } from './commands.js'
import { runMcpToken } from './mcp-token-command.js'

export interface McpFlags {
  /** `--max-message-bytes N` as given. */
  maxMessageBytes?: string
  /** `--max-concurrent-calls N` as given. */
  maxConcurrentCalls?: string
}

// The MCP SDK (and zod with it) is loaded by the commands that serve, not by every dsh command.
export async function runMcp(options: GlobalOptions, io: Output, flags: McpFlags = {}): Promise<number> {
  const { DEFAULT_MAX_CONCURRENT_CALLS, serveMcp } = await import('../mcp/mcp-server.js')
  const { DEFAULT_MAX_MESSAGE_BYTES } = await import('../mcp/stdio-transport.js')
  const maxMessageBytes = whole(flags.maxMessageBytes, '--max-message-bytes', 1024, DEFAULT_MAX_MESSAGE_BYTES)
  const maxConcurrentCalls = whole(flags.maxConcurrentCalls, '--max-concurrent-calls', 1, DEFAULT_MAX_CONCURRENT_CALLS)
  const composition = await compose({ configDir: findConfigDir(options.configDir), preset: options.preset, overlays: options.config })
  printWarnings(composition, io, 'dsh mcp')
  try {
    await serveMcp({ composition, log: io.err, maxMessageBytes, maxConcurrentCalls })
    return 0
  } finally {
    await composition.dispose()
  }
}

const HTTP_USAGE = `usage: dsh mcp --http [HOST:]PORT [--no-auth] [--allowed-host NAME]... [--allowed-origin ORIGIN]...
                [--max-body-bytes N] [--max-concurrent-calls N] [--calls-per-minute N]
                [--oauth-issuer URL --oauth-audience URI [--oauth-jwks-url URL]]
                [--preset NAME] [--config FILE]... [--config-dir DIR]
       dsh mcp token create NAME [--expires 30d] | list | revoke NAME   [--json]`

/** Whether the arguments are `dsh mcp --http ...` or `dsh mcp token ...`, which this file parses itself. */
export function isMcpHttpOrToken(argv: string[]): boolean {
  let at = 0
  while (at < argv.length && argv[at].startsWith('-')) at += ['--preset', '--config', '--config-dir'].includes(argv[at]) ? 2 : 1
  if (argv[at] !== 'mcp') return false
  const rest = argv.slice(at + 1)
  return rest[0] === 'token' || rest.some((arg) => arg === '--http' || arg.startsWith('--http='))
}

/** `dsh mcp --http ...` and `dsh mcp token ...`. */
export async function runMcpRoute(argv: string[], io: Output): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        preset: { type: 'string' },
        config: { type: 'string', multiple: true },
        'config-dir': { type: 'string' },
        json: { type: 'boolean', default: false },
        http: { type: 'string' },
        'no-auth': { type: 'boolean', default: false },
        'allowed-host': { type: 'string', multiple: true },
        'allowed-origin': { type: 'string', multiple: true },
        'max-body-bytes': { type: 'string' },
        'max-concurrent-calls': { type: 'string' },
        'calls-per-minute': { type: 'string' },
        expires: { type: 'string' },
        'oauth-issuer': { type: 'string' },
        'oauth-audience': { type: 'string' },
        'oauth-jwks-url': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (error: any) {
    throw new UsageError(`${error?.message ?? error}\n${HTTP_USAGE}`)
  }
  const { values, positionals } = parsed
  if (values.help) {
    io.out(HTTP_USAGE)
    return 0
  }
  const [, ...args] = positionals
  if (args[0] === 'token') {
    const serveFlag = (['http', 'no-auth', 'allowed-host', 'allowed-origin', 'max-body-bytes', 'max-concurrent-calls', 'calls-per-minute', 'oauth-issuer', 'oauth-audience', 'oauth-jwks-url'] as const).find((flag) => values[flag] !== undefined && values[flag] !== false)
    if (serveFlag) throw new UsageError(`--${serveFlag} goes with dsh mcp --http, not with dsh mcp token.`)
    return runMcpToken(args.slice(1), { json: !!values.json, expires: values.expires }, io)
  }
  if (args.length || values.json || values.expires !== undefined) throw new UsageError(HTTP_USAGE)
  const { host, port } = parseListen(values.http ?? '')
  const noAuth = !!values['no-auth']
  if (noAuth && !isLoopbackHost(host)) {
    throw new UsageError(`--no-auth is accepted only on a loopback address (127.0.0.1, ::1, localhost), not on ${host}: anyone who can reach ${host} could call the tools. Create a token instead: dsh mcp token create NAME.`)
  }
  const oauth = oauthSettings(values['oauth-issuer'], values['oauth-audience'], values['oauth-jwks-url'])
  if (noAuth && oauth) throw new UsageError('--no-auth and --oauth-issuer contradict each other: choose one.')
  const allowedHosts = values['allowed-host'] ?? []
  if (!isLoopbackHost(host) && !allowedHosts.length) {
    throw new UsageError(`On ${host}, say which Host names clients (or the load balancer) use to reach this server: --allowed-host NAME (repeatable; '*' when the load balancer checks Host itself).`)
  }
  const limits = {
    maxBodyBytes: whole(values['max-body-bytes'], '--max-body-bytes', 1024, DEFAULT_MAX_BODY_BYTES),
    maxConcurrentCalls: whole(values['max-concurrent-calls'], '--max-concurrent-calls', 1, DEFAULT_HTTP_MAX_CONCURRENT_CALLS),
    callsPerMinute: whole(values['calls-per-minute'], '--calls-per-minute', 1, DEFAULT_HTTP_CALLS_PER_MINUTE),
  }
  const composition = await compose({ configDir: findConfigDir(values['config-dir']), preset: values.preset, overlays: values.config ?? [] })
  printWarnings(composition, io, 'dsh mcp')
  try {
    const [{ mcpServices }, { McpHttpServer }, { OAuthVerifier }] = await Promise.all([import('../mcp/mcp-server.js'), import('../mcp/http-server.js'), import('../mcp/oauth-verifier.js')])
    const { tools, sessions } = mcpServices(composition)
    const tokens = noAuth ? null : FileTokenStore.inHome(defaultHome())
    const auth = tokens ? { tokens, ...(oauth ? { oauth: new OAuthVerifier(oauth) } : {}) } : null
    const server = new McpHttpServer({ tools, sessions, host, port, auth, limits, allowedHosts, allowedOrigins: values['allowed-origin'] ?? [], log: io.err })
    const address = await server.listen()
    if (noAuth) io.err(`dsh mcp: warning: authentication is off (--no-auth): any process on this machine can call the tools at ${address}.`)
    io.err(`dsh mcp: serving ${tools.roster().length} tool(s) over Streamable HTTP (stateless) at ${address}; limits per token and process: ${limits.maxConcurrentCalls} calls at once, ${limits.callsPerMinute} calls a minute, ${limits.maxBodyBytes} bytes per request`)
    if (oauth) io.err(`dsh mcp: also accepting access tokens (JWT) of ${oauth.issuer} for the resource ${oauth.audience}`)
    else if (tokens && !(await tokens.list()).some((token) => !token.revoked)) io.err('dsh mcp: no token exists yet: every request is refused until you create one with dsh mcp token create NAME.')
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
