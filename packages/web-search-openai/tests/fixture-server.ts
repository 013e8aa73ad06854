import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A recorded fixture: what the provider's server answers. */
export interface Fixture {
  status: number
  headers?: Record<string, string>
  /** JSON body, serialised as is. */
  body?: unknown
  /** Raw body text, sent instead of `body` (truncated JSON, proxy HTML). */
  rawBody?: string
}

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

export type Handler = (request: IncomingMessage, response: ServerResponse, received: ReceivedRequest) => void

const fixturesDir = new URL('./fixtures/', import.meta.url)

export function loadFixture(name: string): Fixture {
  return JSON.parse(readFileSync(new URL(`${name}.json`, fixturesDir), 'utf8')) as Fixture
}

/**
 * A real HTTP server on 127.0.0.1 (never another address) that answers with
 * queued fixtures in order and records every request it received.
 */
export class FixtureServer {
  readonly requests: ReceivedRequest[] = []
  private readonly queue: Handler[] = []
  private server!: Server
  url = ''

  static async start(): Promise<FixtureServer> {
    const fixture = new FixtureServer()
    fixture.server = createServer((request, response) => fixture.handle(request, response))
    await new Promise<void>((resolve) => fixture.server.listen(0, '127.0.0.1', resolve))
    const { port } = fixture.server.address() as AddressInfo
    fixture.url = `http://127.0.0.1:${port}`
    return fixture
  }

  /** Queues fixtures (by name or object), answered one per request. */
  reply(...fixtures: Array<string | Fixture>): this {
    for (const item of fixtures) {
      const fixture = typeof item === 'string' ? loadFixture(item) : item
      this.queue.push((_request, response) => send(response, fixture))
    }
    return this
  }

  /** Queues a hand-written answer. */
  replyWith(handler: Handler): this {
    this.queue.push(handler)
    return this
  }

  reset(): void {
    this.requests.length = 0
    this.queue.length = 0
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      this.requests.push(received)
      const handler = this.queue.shift()
      if (!handler) {
        send(response, { status: 599, body: { error: { message: 'fixture server: no answer queued' } } })
        return
      }
      handler(request, response, received)
    })
  }
}

export function send(response: ServerResponse, fixture: Fixture): void {
  const text = fixture.rawBody ?? (fixture.body === undefined ? '' : JSON.stringify(fixture.body))
  const headers: Record<string, string> = { 'content-type': 'application/json', ...fixture.headers }
  response.writeHead(fixture.status, { ...headers, 'content-length': String(Buffer.byteLength(text)) })
  response.end(text)
}
