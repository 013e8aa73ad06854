import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import { existsSync } from 'node:fs'
import type { AddressInfo, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { createHash } from 'node:crypto'
import type { LookupFunction } from 'dsh-web-egress'
import { type BrowserFetcherOptions, createBrowserFetcher } from '../src/browser-fetcher.js'

/** Why the browser tests are skipped where Debian's chromium is not installed (.ci/run installs it). */
export const chromiumMissing = existsSync('/usr/bin/chromium') ? false : 'chromium is not installed (apt-get install -y chromium; .ci/run does it)'

/** No proxy variables: whatever the machine sets, a test of the direct route reads none. */
export const DIRECT: Record<string, string | undefined> = {}

export interface Listener {
  host: string
  port: number
  origin: string
  /** Requests seen (method and path), in order. */
  hits: string[]
  /** TCP connections accepted, whatever came over them. */
  connections: number
  close(): Promise<void>
}

/** A node:http server on `host`:0 that counts connections as well as requests; upgrades (WebSocket) count as connections. */
export async function listen(
  host: string,
  handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end('internal'),
  onUpgrade: (request: IncomingMessage, socket: Duplex) => void = (_request, socket) => socket.destroy(),
): Promise<Listener> {
  const hits: string[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`)
    handler(request, response)
  })
  const listener = { host, port: 0, origin: '', hits, connections: 0, close: async () => {} }
  server.on('connection', (socket) => {
    listener.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('upgrade', (request, socket) => {
    hits.push(`UPGRADE ${request.url}`)
    onUpgrade(request, socket)
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  listener.port = (server.address() as AddressInfo).port
  listener.origin = `http://${host.includes(':') ? `[${host}]` : host}:${listener.port}`
  listener.close = async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  }
  return listener
}

/** A resolver for tests: the names in `table`, and ENOTFOUND for every other (nothing is asked of real DNS). */
export function testLookup(table: Record<string, string>, asked: string[] = []): LookupFunction {
  return (hostname, _options, callback) => {
    asked.push(hostname)
    const address = table[hostname]
    if (address) queueMicrotask(() => callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]))
    else queueMicrotask(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []))
  }
}

/** A fetcher with explicit config: no proxy variables, the page's server trusted, a resolver of its own. */
export function testFetcher(options: BrowserFetcherOptions = {}) {
  return createBrowserFetcher({ env: DIRECT, privateHosts: ['127.0.0.1'], lookup: testLookup({}), timeoutMs: 20_000, ...options })
}

/** Answers a WebSocket handshake (RFC 6455 4.2.2) and sends one text frame: a legitimate socket of the page. */
export function answerWebSocket(text: string) {
  return (request: IncomingMessage, socket: Duplex) => {
    const accept = createHash('sha1').update(`${request.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`)
    const payload = Buffer.from(text, 'utf8')
    socket.write(Buffer.concat([Buffer.from([0x81, payload.length]), payload]))
    socket.on('error', () => {})
  }
}
