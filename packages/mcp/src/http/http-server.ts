import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import type { Context } from 'cordis'
import type { SessionHandle, SessionsService, ToolPreExecute, ToolsService } from 'dsh-host'
import { CallLimits, type CallLimitSettings } from '../call-limits.js'
import { type BodyLimits, describeBodyRefusal, readBody } from './http-body.js'
import { type ConnectionLimits, ConnectionGate, REQUEST_TIMEOUT_MS } from './http-connections.js'
import { authenticate, type Authenticator, checkOrigin, hostWithPort, type OriginPolicy, originPolicy, REFUSED, sendJsonRpcError } from './http-guard.js'
import { createToolServer } from '../mcp-server.js'

export const MCP_PATH = '/mcp'

export interface HttpServeOptions {
  tools: ToolsService
  sessions: SessionsService
  /** The composition's context: the server counts the calls run_code makes (tools/pre-execute) against their token's limits. */
  ctx: Context
  host: string
  port: number
  /** Who may call; null serves without authentication (loopback only, checked by the caller). */
  auth: Authenticator | null
  limits: CallLimitSettings & BodyLimits & ConnectionLimits & { headersTimeoutMs: number }
  allowedHosts: string[]
  allowedOrigins: string[]
  log(text: string): void
}

/**
 * `dsh mcp --http`: MCP Streamable HTTP, stateless. Each POST is checked
 * (Host, Origin, bearer token, body size), then answered by a fresh SDK
 * server and transport (`sessionIdGenerator: undefined`), so no state
 * lives between requests and any process behind a load balancer can answer
 * any request. What a process keeps is per process: the limits, the session
 * each token's calls are recorded in, the calls in flight (for cancellation).
 */
export class McpHttpServer {
  private readonly http: HttpServer
  private readonly limits: CallLimits
  private readonly connections: ConnectionGate
  private readonly sessions = new Map<string, Promise<SessionHandle>>()
  /** The token each session of this server records, by session id: a call made from run_code carries its parent's session. */
  private readonly sessionTokens = new Map<string, string>()
  /** The ids of the calls admitted here (the clients' own calls), while they run. */
  private readonly admittedCalls = new Set<string>()
  private disposePreExecute: (() => void) | undefined
  /** Calls in flight, by token and JSON-RPC id, for `notifications/cancelled`. */
  private readonly inFlight = new Map<string, Set<AbortController>>()
  private policy: OriginPolicy = { hosts: [], origins: [] }
  address = ''

  constructor(readonly options: HttpServeOptions) {
    this.limits = new CallLimits(options.limits)
    const { headersTimeoutMs } = options.limits
    const serverOptions = {
      headersTimeout: headersTimeoutMs,
      requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeoutMs),
      // Node checks both timeouts at this interval (30 s by default, which would triple a 10 s headersTimeout).
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeoutMs / 2))),
    }
    this.http = createServer(serverOptions, (req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        options.log(`dsh mcp: ${(error as Error)?.stack ?? error}`)
        if (!res.headersSent) sendJsonRpcError(res, 500, 'Internal error in dsh mcp; the details are in the server log.')
        else res.destroy()
      })
    })
    this.connections = new ConnectionGate(options.limits, options.log)
    this.connections.attach(this.http)
  }

  async listen(): Promise<string> {
    const { host, port } = this.options
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject)
      this.http.listen(port, host, () => resolve())
    })
    this.disposePreExecute = this.options.ctx.on('tools/pre-execute', (call) => this.countNested(call))
    const bound = (this.http.address() as AddressInfo).port
    this.policy = originPolicy(host, bound, { hosts: this.options.allowedHosts, origins: this.options.allowedOrigins })
    this.address = `http://${hostWithPort(host, bound)}${MCP_PATH}`
    return this.address
  }

  close(): Promise<void> {
    this.disposePreExecute?.()
    for (const controllers of this.inFlight.values()) for (const controller of controllers) controller.abort(new Error('dsh mcp is shutting down'))
    this.http.closeAllConnections()
    return new Promise((resolve) => this.http.close(() => resolve()))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const refusal = checkOrigin(req, this.policy)
    if (refusal) return sendJsonRpcError(res, refusal.status, refusal.message)
    const oauth = this.options.auth?.oauth
    if (oauth && req.method === 'GET' && (path === '/.well-known/oauth-protected-resource' || path === new URL(oauth.metadataUrl()).pathname)) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' })
      return void res.end(JSON.stringify(oauth.metadata()))
    }
    if (path !== MCP_PATH) return sendJsonRpcError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`)
    if (req.method !== 'POST') {
      // Stateless: no stream to resume (GET) and no session to end (DELETE).
      return sendJsonRpcError(res, 405, `Method not allowed: this MCP server is stateless and answers POST only.`, { headers: { allow: 'POST' } })
    }
    let token = ''
    if (this.options.auth) {
      const name = await authenticate(req, res, this.options.auth)
      if (name === undefined) return
      token = name
    }
    this.connections.authenticated(req.socket)
    // Bounded as it streams, and its depth counted before JSON.parse can block every other client.
    const body = await readBody(req, this.options.limits)
    if ('refused' in body) {
      const { status, message, data } = describeBodyRefusal(body.refused, this.options.limits)
      this.options.log(`dsh mcp: ${token ? `token "${token}": ` : ''}${message}`)
      return sendJsonRpcError(res, status, message, { data })
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(body.text)
    } catch (error: any) {
      res.writeHead(400, { 'content-type': 'application/json' })
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: the request body is not valid JSON (${error?.message ?? error}).` } }))
    }
    const messages = Array.isArray(parsed) ? parsed : [parsed]
    if (messages.every((message: any) => message && typeof message === 'object' && message.id === undefined && typeof message.method === 'string')) {
      // Notifications only: nothing to answer, and a cancellation may be for a call running here.
      for (const message of messages as any[]) if (message.method === 'notifications/cancelled') this.cancel(token, message.params)
      res.writeHead(202).end()
      return
    }
    await this.answer(req, res, parsed, token)
  }

  /** One request, answered by a fresh server and stateless transport. */
  private async answer(req: IncomingMessage, res: ServerResponse, parsed: unknown, token: string): Promise<void> {
    const { tools, log } = this.options
    const server = createToolServer({
      tools,
      log,
      admit: async (name, extra) => {
        const admitted = this.limits.admit(token, name)
        if ('refusal' in admitted) {
          const { refusal } = admitted
          log(`dsh mcp: ${refusal.message}`)
          throw new McpError(REFUSED, refusal.message, { code: refusal.code, limit: refusal.limit, value: refusal.value, ...(refusal.retryAfterSeconds ? { retryAfterSeconds: refusal.retryAfterSeconds } : {}) })
        }
        const callId = `call_${randomBytes(6).toString('hex')}`
        this.admittedCalls.add(callId)
        const controller = new AbortController()
        const key = `${token}\0${JSON.stringify(extra.requestId)}`
        const set = this.inFlight.get(key) ?? new Set()
        set.add(controller)
        this.inFlight.set(key, set)
        // A client that hangs up can never receive the answer: the call stops.
        const onClose = () => {
          if (!res.writableFinished) controller.abort(new Error('The client closed the connection before the answer.'))
        }
        res.once('close', onClose)
        let session: SessionHandle
        try {
          session = await this.sessionFor(token)
        } catch (error) {
          admitted.release()
          this.admittedCalls.delete(callId)
          set.delete(controller)
          throw error
        }
        return {
          session,
          callId,
          signal: AbortSignal.any([controller.signal, extra.signal]),
          done: () => {
            admitted.release()
            this.admittedCalls.delete(callId)
            res.off('close', onClose)
            set.delete(controller)
            if (!set.size) this.inFlight.delete(key)
          },
        }
      },
    })
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    res.once('close', () => {
      void transport.close().catch(() => {})
      void server.close().catch(() => {})
    })
    await server.connect(transport)
    await transport.handleRequest(req, res, parsed)
  }

  /**
   * A call in one of this server's sessions that this server did not admit
   * is one a run_code call made: it counts against its token's calls per
   * minute, and past the limit it is refused (the code sees TOOL_REFUSED
   * with the limit's message).
   */
  private countNested(call: ToolPreExecute): string | undefined {
    const token = call.session ? this.sessionTokens.get(call.session.id) : undefined
    if (token === undefined || this.admittedCalls.has(call.callId)) return undefined
    const refusal = this.limits.countNested(token, call.tool.name)
    if (!refusal) return undefined
    this.options.log(`dsh mcp: ${refusal.message}`)
    return `${refusal.message} (a call made by run_code counts against its token's limit like any other)`
  }

  /** Aborts the call the cancellation names, when exactly one call of this token has that id here. */
  private cancel(token: string, params: any): void {
    if (!params || (typeof params.requestId !== 'string' && typeof params.requestId !== 'number')) return
    const set = this.inFlight.get(`${token}\0${JSON.stringify(params.requestId)}`)
    if (!set || set.size !== 1) return
    const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by the client'
    for (const controller of set) controller.abort(new Error(reason))
  }

  /** The session a token's calls are recorded in: one per token per process, made at its first call. */
  private sessionFor(token: string): Promise<SessionHandle> {
    let pending = this.sessions.get(token)
    if (!pending) {
      pending = (async () => {
        const session = await this.options.sessions.create()
        this.sessionTokens.set(session.id, token)
        await session.append('mcp/session-start', { transport: 'http', token: token || null, address: this.address, pid: process.pid }, { visibility: 'log' })
        this.options.log(`dsh mcp: ${token ? `token "${token}"` : 'calls'} recorded in session ${session.id}`)
        return session
      })()
      pending.catch(() => this.sessions.delete(token))
      this.sessions.set(token, pending)
    }
    return pending
  }
}
