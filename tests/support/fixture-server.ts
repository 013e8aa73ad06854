import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach } from 'node:test'

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

/** Reads `<fixturesDir>/<name>.json`. */
export function loadFixture(fixturesDir: URL, name: string): Fixture {
  return JSON.parse(readFileSync(new URL(`${name}.json`, fixturesDir), 'utf8')) as Fixture
}

/**
 * A real HTTP server on 127.0.0.1 (never another address) that answers with
 * queued fixtures in order and records every request it received. Fixtures
 * named by string are read from the package's own `fixturesDir`.
 */
export class FixtureServer {
  readonly requests: ReceivedRequest[] = []
  private readonly queue: Handler[] = []
  private readonly server: Server
  url = ''

  constructor(private readonly fixturesDir?: URL) {
    this.server = createServer((request, response) => this.handle(request, response))
  }

  static async start(fixturesDir?: URL): Promise<FixtureServer> {
    const fixture = new FixtureServer(fixturesDir)
    await fixture.listen()
    return fixture
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    const { port } = this.server.address() as AddressInfo
    this.url = `http://127.0.0.1:${port}`
  }

  /** Queues fixtures (by name or object), answered one per request. */
  reply(...fixtures: Array<string | Fixture>): this {
    for (const item of fixtures) {
      const fixture = typeof item === 'string' ? this.load(item) : item
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

  private load(name: string): Fixture {
    if (!this.fixturesDir) throw new Error(`fixture server: no fixtures folder to read ${name} from`)
    return loadFixture(this.fixturesDir, name)
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

/**
 * One fixture server for the enclosing `describe`: listening before its first
 * test, emptied before each, closed after the last.
 */
export function useFixtureServer(fixturesDir: URL): FixtureServer {
  const server = new FixtureServer(fixturesDir)
  before(() => server.listen())
  after(() => server.close())
  beforeEach(() => server.reset())
  return server
}
