import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { LookupAddress, LookupFunction } from '../src/address-policy.js'

export interface TestServer {
  port: number
  origin: string
  /** Paths requested so far, in order. */
  hits: string[]
  server: Server
  close(): Promise<void>
}

/** A node:http server on 127.0.0.1:0; every socket is ended on close. */
export async function startServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestServer> {
  const hits: string[] = []
  const sockets = new Set<Socket>()
  const server = createServer((request, response) => {
    hits.push(request.url ?? '')
    handler(request, response)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hits,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
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
