import type { Server as HttpServer } from 'node:http'
import type { Socket } from 'node:net'
import { REFUSED } from './http-guard.js'

/**
 * The connections `dsh mcp --http` keeps open. At most `maxConnections` in
 * all, and of those at most `maxPendingConnections` that have not yet
 * carried a request with a valid token (pending: half-open, slow heads,
 * refused tokens). When a connection comes in and the pending share is
 * full, the oldest pending connection is closed to make room, so clients
 * without a token can hold no more than their share however many they
 * open, and a client with a valid token always gets a connection far
 * enough to show it. Slow heads are closed by the server's headersTimeout
 * as well (http-server.ts).
 */

export const DEFAULT_MAX_CONNECTIONS = 256
export const DEFAULT_MAX_PENDING_CONNECTIONS = 64
/** How long a client may take to send a request's head; then the server answers 408 and closes the connection. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
/** How long a client may take to send a whole request, body included (at least the headers timeout). */
export const REQUEST_TIMEOUT_MS = 60_000

export interface ConnectionLimits {
  maxConnections: number
  maxPendingConnections: number
}

export class ConnectionGate {
  private readonly open = new Set<Socket>()
  /** Oldest first (a Set keeps insertion order). */
  private readonly pending = new Set<Socket>()
  /** Connections closed to make room, and refused at the cap; logged when it starts and every 100. */
  private closed = 0

  constructor(readonly limits: ConnectionLimits, private readonly log: (text: string) => void) {}

  attach(server: HttpServer): void {
    server.on('connection', (socket: Socket) => this.admit(socket))
  }

  /** A request on this connection carried a valid token (or the server needs none): it no longer counts as pending. */
  authenticated(socket: Socket): void {
    this.pending.delete(socket)
  }

  /** Connections open and pending now. */
  counts(): { open: number; pending: number } {
    return { open: this.open.size, pending: this.pending.size }
  }

  private admit(socket: Socket): void {
    const { maxConnections, maxPendingConnections } = this.limits
    if (this.pending.size >= maxPendingConnections) {
      this.drop(this.oldestPending(), `${this.pending.size} connections without a valid token are open, the limit (dsh mcp --http --max-pending-connections ${maxPendingConnections}); the oldest was closed to make room for a new one`)
    } else if (this.open.size >= maxConnections && this.pending.size) {
      this.drop(this.oldestPending(), `${this.open.size} connections are open, the limit (dsh mcp --http --max-connections ${maxConnections}); the oldest without a valid token was closed to make room for a new one`)
    } else if (this.open.size >= maxConnections) {
      this.count(`${this.open.size} connections with a valid token are open, the limit (dsh mcp --http --max-connections ${maxConnections}); a new connection was refused`)
      // Said in HTTP before the close, for a client that reads it.
      socket.end(refusal(`Refused: this server has ${this.open.size} connections open, the limit (dsh mcp --http --max-connections ${maxConnections}). Try again when one has closed.`))
      socket.destroySoon()
      return
    }
    this.open.add(socket)
    this.pending.add(socket)
    socket.once('close', () => {
      this.open.delete(socket)
      this.pending.delete(socket)
    })
  }

  private oldestPending(): Socket {
    return this.pending.values().next().value as Socket
  }

  private drop(socket: Socket, why: string): void {
    this.pending.delete(socket)
    this.open.delete(socket)
    this.count(why)
    socket.destroy()
  }

  private count(why: string): void {
    if (this.closed++ % 100 === 0) this.log(`dsh mcp: ${why} (${this.closed} so far)`)
  }
}

/** A raw 503 with a JSON-RPC error body, for a connection refused before any request was read. */
function refusal(message: string): string {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: REFUSED, message } })
  return `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`
}
