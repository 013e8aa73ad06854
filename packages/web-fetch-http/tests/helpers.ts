import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { type AddressInfo, type Socket, createServer as createNetServer } from 'node:net'
import { createSecureContext } from 'node:tls'
import assert from 'node:assert/strict'
import { WebError } from 'dsh-web'
import type { LookupAddress, LookupFunction } from 'dsh-web-egress'

export interface TestServer {
  port: number
  origin: string
  /** Paths requested so far, in order. */
  hits: string[]
  server: Server
  close(): Promise<void>
}

/** A node:http server on 127.0.0.1:0; every socket is ended on close. */
/**
 * The environment a fetcher of the direct route reads its proxy variables
 * from: none, whatever the machine sets (many corporate machines name a
 * proxy, and .ci/run names one at a closed port). A test of the proxy route
 * passes its own.
 */
export const DIRECT: Record<string, string | undefined> = {}

export function startServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestServer> {
  const hits: string[] = []
  return listen(
    createServer((request, response) => {
      hits.push(request.url ?? '')
      handler(request, response)
    }),
    'http',
    hits,
  )
}

export interface TlsTestServer extends TestServer {
  /** The TLS server name (SNI) of every handshake, in order, including handshakes that later fail. */
  serverNames: (string | undefined)[]
}

/** A node:https server on 127.0.0.1:0 with the given key and certificate; records SNI. */
export async function startTlsServer(
  credentials: { key: string; cert: string },
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<TlsTestServer> {
  const hits: string[] = []
  const serverNames: (string | undefined)[] = []
  const context = createSecureContext(credentials)
  const server = createHttpsServer(
    {
      ...credentials,
      SNICallback(name, callback) {
        serverNames.push(name)
        callback(null, context)
      },
    },
    (request, response) => {
      hits.push(request.url ?? '')
      handler(request, response)
    },
  )
  // A handshake without SNI never reaches SNICallback.
  server.on('secureConnection', (socket) => {
    if (!socket.servername) serverNames.push(undefined)
  })
  server.on('tlsClientError', () => {})
  const started = await listen(server, 'https', hits)
  return { ...started, serverNames }
}

async function listen(server: Server, scheme: 'http' | 'https', hits: string[]): Promise<TestServer> {
  const sockets = new Set<Socket>()
  // The TCP sockets, also of TLS servers: ending one ends its TLS connection.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  // localhost may resolve to ::1 first (a stock Debian /etc/hosts lists both, this machine's only 127.0.0.1),
  // here and in a proxy that resolves it: the same server answers on [::1] and the same port, where the machine has ::1.
  const ipv6 = createNetServer((socket) => server.emit('connection', socket))
  await new Promise<void>((resolve) => {
    ipv6.once('error', () => resolve())
    ipv6.listen(port, '::1', () => resolve())
  })
  return {
    port,
    origin: `${scheme}://127.0.0.1:${port}`,
    hits,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        if (ipv6.listening) ipv6.close()
        server.close(() => resolve())
      }),
  }
}

/** A `dns.lookup` stand-in: names map to fixed answers; anything else is NXDOMAIN. Counts calls. */
export function fakeLookup(table: Record<string, string[] | (() => string[])>): LookupFunction & { calls: string[] } {
  const calls: string[] = []
  const lookup = ((hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
    calls.push(hostname)
    const entry = table[hostname]
    if (!entry) {
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
      queueMicrotask(() => callback(error, []))
      return
    }
    const answers = typeof entry === 'function' ? entry() : entry
    queueMicrotask(() => callback(null, answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))))
  }) as LookupFunction & { calls: string[] }
  lookup.calls = calls
  return lookup
}

export const signal = () => new AbortController().signal

/** Awaits a call that must fail, and returns its WebError (anything else fails the test). */
export async function refusal(promise: Promise<unknown>): Promise<WebError> {
  try {
    await promise
  } catch (error) {
    assert.ok(WebError.is(error), `expected a WebError, got ${(error as Error)?.stack ?? error}`)
    return error
  }
  assert.fail('expected a refusal')
}
