import assert from 'node:assert/strict'
import { createServer, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { ConnectionGate } from '../src/http/http-connections.js'

/** A real socket to `port`, with what it received and an event for its close. */
function open(port: number) {
  const socket: Socket = connect(port, '127.0.0.1')
  let received = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk))
  socket.on('error', () => {})
  return {
    socket,
    connected: new Promise<void>((resolve) => socket.once('connect', () => resolve())),
    closed: new Promise<void>((resolve) => socket.once('close', () => resolve())),
    received: () => received,
  }
}

describe('ConnectionGate: a total cap, and a share for connections without a valid token', () => {
  let server: Server
  let port = 0
  let gate: ConnectionGate
  const held: ServerResponse[] = []
  const logged: string[] = []
  /** Resolved as the server receives requests: `requests(n)` once n have arrived. */
  let seen = 0
  const waiting: Array<{ count: number; resolve: () => void }> = []
  const requests = (count: number) => new Promise<void>((resolve) => (seen >= count ? resolve() : waiting.push({ count, resolve })))

  before(async () => {
    gate = new ConnectionGate({ maxConnections: 4, maxPendingConnections: 2 }, (text) => logged.push(text))
    // A request with "authorization: ok" stands for one with a valid token; every answer is held, so each connection stays open.
    server = createServer((req, res) => {
      if (req.headers.authorization === 'ok') gate.authenticated(req.socket)
      held.push(res)
      seen++
      for (const waiter of waiting.filter(({ count }) => seen >= count)) waiter.resolve()
    })
    gate.attach(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('closes the oldest pending connection for a new one, and refuses with 503 at the cap when every connection holds a valid token', async () => {
    const request = (auth: string) => `GET / HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`
    const valid = [open(port), open(port), open(port)]
    for (const client of valid) {
      await client.connected
      client.socket.write(request('ok'))
    }
    await requests(3)
    assert.deepEqual(gate.counts(), { open: 3, pending: 0 })

    // The fourth connection never shows a token; a fifth takes its place, the total cap (4) notwithstanding.
    const idle = open(port)
    await idle.connected
    const next = open(port)
    await next.connected
    await idle.closed
    assert.match(logged.join('\n'), /4 connections are open, the limit \(dsh mcp --http --max-connections 4\); the oldest without a valid token was closed to make room for a new one/)

    // At the cap, each new connection takes the place of the oldest one without a token.
    const more = [open(port), open(port)]
    await Promise.all(more.map((client) => client.connected))
    await Promise.all([next.closed, more[0].closed])
    assert.deepEqual(gate.counts(), { open: 4, pending: 1 })

    // When all four hold a valid token, a new connection is told why, and closed.
    more[1].socket.write(request('ok'))
    await requests(4)
    assert.deepEqual(gate.counts(), { open: 4, pending: 0 })
    const refused = open(port)
    await refused.closed
    assert.match(refused.received(), /^HTTP\/1\.1 503 Service Unavailable\r\n/)
    assert.match(refused.received(), /"message":"Refused: this server has 4 connections open, the limit \(dsh mcp --http --max-connections 4\)\. Try again when one has closed\."/)
    for (const client of valid) assert.equal(client.socket.destroyed, false, 'the connections with a token are kept')
  })
})
