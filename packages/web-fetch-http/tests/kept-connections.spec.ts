import assert from 'node:assert/strict'
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { after, describe, it } from 'node:test'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { PinnedAgents, loadUndici } from 'dsh-web-egress'
import { REDIRECT_DRAIN_BYTES, REDIRECT_DRAIN_MS } from '../src/redirects.js'
import { fakeLookup, refusal } from './helpers.js'

const PAGE = '<html><head><title>kept</title></head><body><p>a page served on a kept connection</p></body></html>'

/** A node:http server that counts the TCP connections it accepted and knows which are still open. */
interface CountingServer {
  port: number
  accepted: number
  open: Set<Socket>
  server: Server
  close(): Promise<void>
}

async function countingServer(
  host: string,
  handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(PAGE)
  },
  port = 0,
): Promise<CountingServer> {
  const server = createServer(handler)
  // The server keeps idle connections longer than the fetcher does, so that what is counted is the fetcher's choice.
  server.keepAliveTimeout = 60_000
  const counted: CountingServer = {
    port: 0,
    accepted: 0,
    open: new Set(),
    server,
    close: () => {
      for (const socket of counted.open) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
  server.on('connection', (socket: Socket) => {
    counted.accepted++
    counted.open.add(socket)
    socket.on('close', () => counted.open.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(port, host, resolve))
  counted.port = (server.address() as AddressInfo).port
  return counted
}

/** Resolves when the socket has closed: on its 'close' event, not after a wait that a busy machine can outlast. */
function closed(socket: Socket): Promise<void> {
  if (socket.closed) return Promise.resolve()
  return new Promise((resolve) => socket.once('close', () => resolve()))
}

/** Resolves when every connection the server has open now has closed. */
function allClosed(server: CountingServer): Promise<void> {
  return Promise.all([...server.open].map(closed)).then(() => {})
}

/**
 * One fetch from a server of its own, so that the extraction worker is running
 * before the connections counted: on a busy machine its start can outlast the
 * 4 s an idle connection is kept, and the test would count a second one.
 */
async function warmUp(fetcher: ReturnType<typeof createHttpFetcher>, host: string) {
  const warm = await countingServer('127.0.0.1')
  try {
    await fetcher.fetch({ url: `http://${host}:${warm.port}/warm-up`, format: 'text' })
  } finally {
    await warm.close()
  }
}

describe('pinned connections are kept between fetches', () => {
  const servers: CountingServer[] = []
  after(async () => {
    await Promise.all(servers.map((server) => server.close()))
  })

  it('two fetches of the same host reuse one TCP connection, and close() leaves no socket open', async () => {
    const server = await countingServer('127.0.0.1')
    servers.push(server)
    const fetcher = createHttpFetcher({ env: {}, lookup: fakeLookup({ 'kept.test': ['127.0.0.1'] }), privateHosts: ['kept.test'], cacheTtlMs: 0 })
    await warmUp(fetcher, 'kept.test')
    const first = await fetcher.fetch({ url: `http://kept.test:${server.port}/one`, format: 'text' })
    const second = await fetcher.fetch({ url: `http://kept.test:${server.port}/two`, format: 'text' })
    assert.match(first.text, /kept connection/)
    assert.match(second.text, /kept connection/)
    assert.equal(second.provenance.address, '127.0.0.1')
    assert.equal(server.accepted, 1, 'the second fetch went over the first fetch\'s connection')
    assert.equal(server.open.size, 1, 'the connection stays open between fetches')
    await fetcher.close()
    await allClosed(server)
    const refused = await refusal(fetcher.fetch({ url: `http://kept.test:${server.port}/three`, format: 'text' }))
    assert.equal(refused.code, 'WEB_FETCH_FAILED')
    assert.equal(server.accepted, 1, 'a closed fetcher opens no connection')
  })

  it('a changed answer for the host is vetted and connected anew, never sent over the old socket', async () => {
    const v4 = await countingServer('127.0.0.1')
    const v6 = await countingServer('::1', undefined, v4.port).catch(() => undefined)
    servers.push(v4, ...(v6 ? [v6] : []))
    assert.ok(v6, `port ${v4.port} is free on ::1 too (the test needs both loopback addresses)`)
    let answer = '127.0.0.1'
    const fetcher = createHttpFetcher({ env: {}, lookup: fakeLookup({ 'moving.test': () => [answer] }), privateHosts: ['moving.test'], cacheTtlMs: 0 })
    try {
      await warmUp(fetcher, 'moving.test')
      const before = await fetcher.fetch({ url: `http://moving.test:${v4.port}/`, format: 'text' })
      assert.equal(before.provenance.address, '127.0.0.1')
      answer = '::1'
      const moved = await fetcher.fetch({ url: `http://moving.test:${v4.port}/`, format: 'text' })
      assert.equal(moved.provenance.address, '::1')
      assert.equal(v4.accepted, 1)
      assert.equal(v6.accepted, 1, 'the new answer got a connection of its own')
      // Back to the first answer: its agent is still kept, and its connection is the one reused.
      answer = '127.0.0.1'
      const back = await fetcher.fetch({ url: `http://moving.test:${v4.port}/`, format: 'text' })
      assert.equal(back.provenance.address, '127.0.0.1')
      assert.equal(v4.accepted + v6.accepted, 2)
    } finally {
      await fetcher.close()
    }
  })

  it('concurrent fetches of one host are not serialized onto one connection', async () => {
    // Answers only once three requests are waiting: one connection would wait for ever (the fetch deadline ends it).
    const waiting: ServerResponse[] = []
    const server = await countingServer('127.0.0.1', (_request, response) => {
      waiting.push(response)
      if (waiting.length < 3) return
      for (const held of waiting.splice(0)) {
        held.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        held.end(PAGE)
      }
    })
    servers.push(server)
    const fetcher = createHttpFetcher({ env: {}, lookup: fakeLookup({ 'busy.test': ['127.0.0.1'] }), privateHosts: ['busy.test'], cacheTtlMs: 0, timeoutMs: 10_000 })
    try {
      await warmUp(fetcher, 'busy.test')
      const pages = await Promise.all([1, 2, 3].map((n) => fetcher.fetch({ url: `http://busy.test:${server.port}/${n}`, format: 'text' })))
      for (const page of pages) assert.match(page.text, /kept connection/)
      assert.equal(server.accepted, 3)
      // The three stay open and serve the next fetches.
      await Promise.all([4, 5, 6].map((n) => fetcher.fetch({ url: `http://busy.test:${server.port}/${n}`, format: 'text' })))
      assert.equal(server.accepted, 3)
    } finally {
      await fetcher.close()
    }
  })

  it('a kept connection the server closed while idle: the GET is sent once more on a new connection', async () => {
    // The race of a server's idle timeout, made certain: the second request on any connection is dropped unanswered.
    const served = new WeakMap<Socket, number>()
    const server = await countingServer('127.0.0.1', (request, response) => {
      const count = (served.get(request.socket) ?? 0) + 1
      served.set(request.socket, count)
      if (count > 1) return void request.socket.destroy()
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(PAGE)
    })
    servers.push(server)
    const fetcher = createHttpFetcher({ env: {}, lookup: fakeLookup({ 'stale.test': ['127.0.0.1'] }), privateHosts: ['stale.test'], cacheTtlMs: 0 })
    try {
      await warmUp(fetcher, 'stale.test')
      await fetcher.fetch({ url: `http://stale.test:${server.port}/a`, format: 'text' })
      const again = await fetcher.fetch({ url: `http://stale.test:${server.port}/b`, format: 'text' })
      assert.match(again.text, /kept connection/)
      assert.equal(server.accepted, 2)
    } finally {
      await fetcher.close()
    }
  })

  it('a redirect to the same address is followed over the connection that brought it; a long or slow redirect body is cut off', async () => {
    // The socket each request came on, in order.
    const sockets: { url: string; socket: Socket }[] = []
    const server = await countingServer('127.0.0.1', (request, response) => {
      sockets.push({ url: request.url!, socket: request.socket })
      const redirect = (body: string, end = true) => {
        response.writeHead(301, { location: '/page', 'content-type': 'text/html; charset=utf-8', ...(end ? { 'content-length': Buffer.byteLength(body) } : {}) })
        if (end) response.end(body)
        else response.write(body)
      }
      if (request.url === '/short') return redirect('<a href="/page">Moved</a>')
      if (request.url === '/long') return redirect('x'.repeat(REDIRECT_DRAIN_BYTES + 1))
      // Headers and a first piece, then nothing: the rest never comes.
      if (request.url === '/slow') return redirect('<a href="/page">Moved</a>', false)
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(PAGE)
    })
    servers.push(server)
    const fetcher = createHttpFetcher({ env: {}, lookup: fakeLookup({ 'moved.test': ['127.0.0.1'] }), privateHosts: ['moved.test'], cacheTtlMs: 0 })
    /** The socket of the redirect and of the hop it led to. */
    const hops = async (path: string) => {
      sockets.length = 0
      const document = await fetcher.fetch({ url: `http://moved.test:${server.port}${path}`, format: 'text' })
      assert.match(document.text, /kept connection/)
      assert.equal(document.provenance.redirects.length, 1)
      assert.deepEqual(sockets.map(({ url }) => url), [path, '/page'])
      return { redirect: sockets[0]!.socket, hop: sockets[1]!.socket }
    }
    try {
      await warmUp(fetcher, 'moved.test')
      const short = await hops('/short')
      assert.equal(short.hop, short.redirect, "the hop went over the redirect's connection")
      assert.equal(server.accepted, 1)
      const long = await hops('/long')
      assert.equal(long.redirect, short.hop, 'the next fetch reused the kept connection too')
      assert.notEqual(long.hop, long.redirect, 'a redirect body over the limit was not read: its connection was closed, the hop took a new one')
      await closed(long.redirect)
      const started = performance.now()
      const slow = await hops('/slow')
      assert.ok(performance.now() - started >= REDIRECT_DRAIN_MS * 0.9, 'the body was waited for up to its time')
      assert.notEqual(slow.hop, slow.redirect, 'a redirect body that did not end was cut off with its connection')
      await closed(slow.redirect)
      // To another origin the connection cannot carry the hop: its body is not waited for.
      const other = await countingServer('127.0.0.1')
      servers.push(other)
      const away = await countingServer('127.0.0.1', (_request, response) => {
        response.writeHead(302, { location: `http://moved.test:${other.port}/page`, 'content-type': 'text/html; charset=utf-8' })
        response.write('<a href="elsewhere">Found</a>')
      })
      servers.push(away)
      const leaving = performance.now()
      const elsewhere = await fetcher.fetch({ url: `http://moved.test:${away.port}/`, format: 'text' })
      assert.match(elsewhere.text, /kept connection/)
      assert.ok(performance.now() - leaving < REDIRECT_DRAIN_MS, 'the hop to another origin did not wait for the body that never ends')
    } finally {
      await fetcher.close()
    }
  })

  it('keeps at most its bound of idle agents: the least recently used is closed with its connection, never one in use', async () => {
    const server = await countingServer('127.0.0.1')
    servers.push(server)
    const { request } = await loadUndici()
    const agents = new PinnedAgents(2)
    const timeouts = { connectMs: 5000, headersMs: 5000, bodyMs: 5000 }
    const loopback = { address: '127.0.0.1', family: 4 as const }
    try {
      const oldest = await agents.take('127.0.0.1', loopback, timeouts)
      const response = await request(`http://127.0.0.1:${server.port}/`, { dispatcher: oldest.agent })
      await response.body.text()
      assert.equal(server.open.size, 1)
      // Same key again: the same agent, marked as reused.
      const same = await agents.take('127.0.0.1', loopback, timeouts)
      assert.equal(same.agent, oldest.agent)
      assert.equal(same.reused, true)
      same.release()
      // Two more keys: the idle one is closed, the one still in use is kept.
      ;(await agents.take('127.0.0.1', loopback, { ...timeouts, bodyMs: 4000 })).release()
      ;(await agents.take('127.0.0.1', loopback, { ...timeouts, bodyMs: 3000 })).release()
      assert.equal(agents.size, 2)
      // The agent in use still has its connection: a request on it now goes over the same one (an evicted agent would refuse it).
      // undici hands a finished connection to the next request one turn of the event loop later.
      await new Promise((resolve) => setImmediate(resolve))
      await (await request(`http://127.0.0.1:${server.port}/`, { dispatcher: oldest.agent })).body.text()
      assert.equal(server.accepted, 1, 'the agent in use keeps its connection')
      const connection = [...server.open][0]!
      oldest.release()
      ;(await agents.take('127.0.0.1', loopback, { ...timeouts, bodyMs: 2000 })).release()
      assert.equal(agents.size, 2)
      // Now idle and least recently used, it is evicted: its connection closes.
      await closed(connection)
    } finally {
      await agents.destroy()
    }
  })
})
