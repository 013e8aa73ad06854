import { randomBytes, timingSafeEqual } from 'node:crypto'
import { type IncomingMessage, type ServerResponse, type Server, createServer, request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { type Socket, connect as netConnect } from 'node:net'
import type { Duplex } from 'node:stream'
import type { Dispatcher } from 'undici'
import type { ProxySettings } from 'dsh-host'
import { type FetchRefusal, WebError, redactUrl, routeFor } from 'dsh-web'
import { type AddressPolicy, type PinnedAgents, createProxyDispatcher, loadUndici, proxyFailure, transportError } from 'dsh-web-egress'

/** Refusals kept in full per page; the rest are counted. */
export const REFUSALS_KEPT = 5

export interface VettingProxyOptions {
  policy: AddressPolicy
  /** The operator's route settings (HTTPS_PROXY, HTTP_PROXY, NO_PROXY or the row's proxy section). */
  proxy: ProxySettings
  resolveLocally: boolean
  tunnelHttp: boolean
  /** `user:password` for the upstream proxy, resolved for this call. */
  proxyCredential?: string
  agents: PinnedAgents
  /** Connect, headers and body timeouts of one upstream request. */
  timeoutMs: number
  /** Requests (plain ones and tunnels) let through at most; later ones are refused. */
  maxRequests: number
  /** Bytes sent back to the browser at most, over every request; past it every connection is cut. */
  maxBytes: number
  /** The request's own allowed domain list, checked on every request the page makes. */
  allowedDomains?: string[]
  /** When set, every request is refused with this reason (the browser's own traffic, outside any page). */
  refuseAll?: string
}

/** The realm of the proxy's own Basic challenge. */
const REALM = 'dsh-web vetting proxy'

/** Hop-by-hop headers (RFC 9110 7.6.1) and the proxy's own: never forwarded. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host'])

/**
 * The forward proxy every request of the browser goes to, on 127.0.0.1 in
 * this process. For a tunnel (`CONNECT host:port`) and for a plain request in
 * absolute form (`GET http://host/path`), it runs web-fetch-http's steps:
 * the URL and domain lists, then the route (direct, or the operator's
 * upstream proxy), then the checks of that route; the direct route connects
 * only to the vetted address. What it refuses never leaves this process, and
 * is recorded for the page's provenance. It never follows a redirect: the
 * browser asks again for the next hop, and that request is vetted like any.
 */
export class VettingProxy {
  requests = 0
  bytes = 0
  readonly refused: FetchRefusal = { count: 0, first: [] }
  /** Set once `maxBytes` was reached: the page's traffic was cut there. */
  byteCapReached = false
  /** Requests answered by a route: `direct` or the upstream proxy's origin. */
  readonly routes = new Set<string>()
  private readonly sockets = new Set<Duplex>()
  private readonly server: Server
  /**
   * What the page's browser context answers the proxy's challenge with (the
   * driver's `page.authenticate`): any other process of this machine could
   * connect to a port on 127.0.0.1, and through it reach what the operator
   * trusts; without these it gets a 407 and nothing else.
   */
  readonly credentials = { username: 'dsh', password: randomBytes(24).toString('base64url') }
  private readonly expected: Buffer

  private constructor(private readonly options: VettingProxyOptions) {
    this.expected = Buffer.from(`Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString('base64')}`)
    this.server = createServer((request, response) => void this.forward(request, response))
    this.server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(request, socket, head))
    this.server.on('connection', (socket) => this.track(socket))
    this.server.on('clientError', (_error, socket) => socket.destroy())
  }

  static async start(options: VettingProxyOptions): Promise<VettingProxy> {
    const proxy = new VettingProxy(options)
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject)
      proxy.server.listen(0, '127.0.0.1', () => resolve())
    })
    return proxy
  }

  get url(): string {
    const address = this.server.address()
    if (!address || typeof address === 'string') throw new Error('the vetting proxy is not listening')
    return `http://127.0.0.1:${address.port}`
  }

  /** Stops listening and cuts every connection (the page is done). */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private track(socket: Duplex) {
    this.sockets.add(socket)
    socket.on('close', () => this.sockets.delete(socket))
    socket.on('error', () => {})
  }

  /** Records a request of the page that was not sent (here, or by the driver's interception): counted, and the first few kept. */
  record(what: string, error: WebError) {
    this.refused.count++
    if (this.refused.first.length < REFUSALS_KEPT) this.refused.first.push({ url: what, code: error.code, reason: error.message })
  }

  /** Whether a request carries this proxy's credentials (compared in constant time). */
  private authorised(request: IncomingMessage): boolean {
    if (this.options.refuseAll) return true
    const given = Buffer.from(String(request.headers['proxy-authorization'] ?? ''))
    return given.length === this.expected.length && timingSafeEqual(given, this.expected)
  }

  /** Counts a request against the page's bounds; the refusal when one is passed. */
  private admit(): WebError | undefined {
    if (this.options.refuseAll) return new WebError('WEB_BLOCKED_URL', this.options.refuseAll)
    if (this.byteCapReached) return new WebError('WEB_FETCH_TOO_LARGE', `The page's traffic reached its byte cap of ${this.options.maxBytes} bytes; nothing more is fetched for it.`, { details: { limit: this.options.maxBytes } })
    if (++this.requests > this.options.maxRequests) {
      return new WebError('WEB_RATE_LIMITED', `The page made more than ${this.options.maxRequests} requests (maxRequests); the rest are refused.`, { details: { limit: this.options.maxRequests } })
    }
    return undefined
  }

  /**
   * Bytes on their way back to the browser; past the cap, every connection
   * of the page is cut. What other connections still deliver after the cut
   * is dropped, never passed on, and not counted: the count is what the page
   * was brought, so it ends within one chunk of the cap however many
   * connections were open.
   */
  private count(bytes: number) {
    if (this.byteCapReached) return
    this.bytes += bytes
    if (this.bytes <= this.options.maxBytes) return
    this.byteCapReached = true
    for (const socket of this.sockets) socket.destroy()
  }

  private parse(target: string): URL {
    return this.options.policy.parse(target, this.options.allowedDomains)
  }

  /** A plain request in absolute form (`GET http://host/path`): vetted, then sent on the route, its answer streamed back; a redirect is handed back unfollowed. */
  private async forward(request: IncomingMessage, response: ServerResponse) {
    const shown = safeShown(request.url ?? '')
    let url: URL | undefined
    let dispatcher: (Dispatcher & { destroy(): Promise<void> }) | undefined
    let release = () => {}
    let vetted = false
    const refused = (error: WebError) => {
      this.record(shown, error)
      if (!response.headersSent) response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'x-dsh-web-refused': error.code, connection: 'close' })
      response.end(`dsh-web refused this request: ${error.message}\n`)
    }
    try {
      if (!this.authorised(request)) {
        response.writeHead(407, { 'proxy-authenticate': `Basic realm="${REALM}"`, 'content-length': '0' })
        return void response.end()
      }
      const over = this.admit()
      if (over) return refused(over)
      if (!request.url || !/^http:\/\//i.test(request.url)) {
        return refused(new WebError('WEB_BLOCKED_URL', `The browser sent "${shown}" to the vetting proxy; only http:// requests in absolute form and CONNECT tunnels are accepted.`))
      }
      url = this.parse(request.url)
      const route = routeFor(url, this.options.proxy)
      const timeouts = { connectMs: this.options.timeoutMs, headersMs: this.options.timeoutMs, bodyMs: this.options.timeoutMs }
      if (route.kind === 'direct') {
        const destination = await this.options.policy.vetUrl(url)
        vetted = true
        const pinned = await this.options.agents.take(destination.host, destination.addresses[0]!, timeouts)
        dispatcher = pinned.agent
        release = pinned.release
        this.routes.add('direct')
      } else {
        await this.options.policy.vetForProxy(url, { resolveLocally: this.options.resolveLocally, proxy: route.origin })
        vetted = true
        const tunnelled = await createProxyDispatcher({ url: route.url, credential: this.options.proxyCredential, tunnelHttp: this.options.tunnelHttp, setting: route.setting }, timeouts)
        dispatcher = tunnelled.agent
        const agent = tunnelled.agent
        release = () => void agent.destroy().catch(() => {})
        this.routes.add(route.origin)
        try {
          await this.send(request, response, url, agent)
        } catch (error) {
          throw proxyFailure(error, tunnelled, url, route) ?? error
        }
        return
      }
      await this.send(request, response, url, dispatcher)
    } catch (error) {
      const failure = WebError.is(error) ? error : transportError(error, url ?? new URL('http://invalid/'), new AbortController().signal)
      if (response.headersSent) response.destroy()
      else if (!vetted) refused(failure)
      else {
        response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
        response.end(`dsh-web could not fetch this: ${failure.message}\n`)
      }
    } finally {
      release()
    }
  }

  private async send(request: IncomingMessage, response: ServerResponse, url: URL, dispatcher: Dispatcher) {
    const { request: send } = await loadUndici()
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD'
    const answer = await send(url, {
      method: (request.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      dispatcher,
      ...(hasBody ? { body: request } : {}),
      maxRedirections: 0,
    } as Parameters<typeof send>[1])
    const out: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value
    response.writeHead(answer.statusCode, out)
    for await (const chunk of answer.body) {
      this.count((chunk as Buffer).length)
      if (this.byteCapReached) {
        answer.body.destroy()
        response.destroy()
        return
      }
      // A browser that went away (or a page that ended) never drains: its close ends the wait, and the upstream body with it.
      if (!response.write(chunk)) await new Promise((resolve) => {
        response.once('drain', resolve)
        response.once('close', resolve)
      })
      if (response.destroyed) {
        answer.body.destroy()
        return
      }
    }
    response.end()
  }

  /** A tunnel (`CONNECT host:port`, what https, wss and ws go through): vetted, then opened on the route, the bytes counted. */
  private async tunnel(request: IncomingMessage, socket: Duplex, head: Buffer) {
    this.track(socket)
    const authority = request.url ?? ''
    let vetted = false
    const refused = (error: WebError) => {
      this.record(authority, error)
      socket.end(`HTTP/1.1 403 Forbidden\r\nx-dsh-web-refused: ${error.code}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`)
    }
    try {
      if (!this.authorised(request)) return void socket.end(`HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="${REALM}"\r\ncontent-length: 0\r\n\r\n`)
      const over = this.admit()
      if (over) return refused(over)
      // A tunnel carries https in all but name: it takes the https route (HTTPS_PROXY), its port kept.
      const port = /:(\d+)$/.exec(authority)?.[1]
      if (!port || /[/?#@\s]/.test(authority)) return refused(new WebError('WEB_BLOCKED_URL', `CONNECT ${authority} is not of the form host:port.`))
      const url = this.parse(`https://${authority}/`)
      const target = `${url.hostname}:${port}`
      const route = routeFor(url, this.options.proxy)
      let upstream: Socket
      if (route.kind === 'direct') {
        const destination = await this.options.policy.vetUrl(url)
        vetted = true
        upstream = await connectPinned(destination.addresses[0]!.address, Number(port), this.options.timeoutMs)
        this.routes.add('direct')
      } else {
        await this.options.policy.vetForProxy(url, { resolveLocally: this.options.resolveLocally, proxy: route.origin })
        vetted = true
        upstream = await connectThroughProxy(route.url, target, this.options.proxyCredential, this.options.timeoutMs, route.origin, route.setting)
        this.routes.add(route.origin)
      }
      if (socket.destroyed) return upstream.destroy()
      this.track(upstream)
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      upstream.on('data', (chunk: Buffer) => this.count(chunk.length))
      upstream.pipe(socket)
      socket.pipe(upstream)
      const end = () => {
        upstream.destroy()
        socket.destroy()
      }
      upstream.on('close', end)
      socket.on('close', end)
    } catch (error) {
      const failure = WebError.is(error) ? error : new WebError('WEB_FETCH_FAILED', `The tunnel to ${authority} failed: ${(error as Error)?.message ?? error}.`, { cause: error })
      if (!vetted) refused(failure)
      else socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
    }
  }
}

/** A target as a record may show it: a URL without its query string, an authority as it is; bounded. */
function safeShown(target: string): string {
  let shown = target
  try {
    if (/^[a-z]+:\/\//i.test(target)) shown = redactUrl(target)
  } catch {}
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown
}

/** A TCP connection to the vetted address only, its peer checked once open. */
function connectPinned(address: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address, port, timeout: timeoutMs })
    socket.once('connect', () => {
      socket.setTimeout(0)
      if (socket.remoteAddress?.replace(/^::ffff:/, '') !== address.replace(/^::ffff:/, '')) {
        socket.destroy()
        return reject(new WebError('WEB_FETCH_FAILED', `Connected to ${socket.remoteAddress}, not the vetted ${address}.`))
      }
      resolve(socket)
    })
    socket.once('timeout', () => socket.destroy(new WebError('WEB_TIMEOUT', `Connecting to ${address}:${port} took longer than ${timeoutMs} ms.`)))
    socket.once('error', (error) => reject(WebError.is(error) ? error : new WebError('WEB_FETCH_FAILED', `Connecting to ${address}:${port} failed (${(error as NodeJS.ErrnoException).code ?? error.message}).`, { cause: error })))
  })
}

/** A tunnel through the operator's upstream proxy: `CONNECT target` sent to it, with Basic credentials when configured; its refusal is WEB_PROXY_FAILED. */
function connectThroughProxy(proxy: URL, target: string, credential: string | undefined, timeoutMs: number, origin: string, setting: string): Promise<Socket> {
  const userinfo = proxy.username ? `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}` : undefined
  const basic = credential ?? userinfo
  const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const request = send({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: target,
      headers: { host: target, ...(basic ? { 'proxy-authorization': `Basic ${Buffer.from(basic, 'utf8').toString('base64')}` } : {}) },
      timeout: timeoutMs,
    })
    request.once('connect', (answer, socket) => {
      if (answer.statusCode === 200) return resolve(socket)
      socket.destroy()
      reject(new WebError('WEB_PROXY_FAILED', `The proxy ${origin} refused the tunnel to ${target} with ${answer.statusCode}; check that it runs and allows it, or change ${setting}.`, { details: { proxy: origin, status: answer.statusCode ?? 0 } }))
    })
    request.once('timeout', () => request.destroy(new Error('timed out')))
    request.once('error', (error) => reject(new WebError('WEB_PROXY_FAILED', `The proxy ${origin} could not be reached (${(error as NodeJS.ErrnoException).code ?? error.message}); check that it runs, or change ${setting}.`, { cause: error, details: { proxy: origin }, retryable: true })))
    request.end()
  })
}
