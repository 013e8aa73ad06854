// Two `dsh mcp --http` processes on one machine and one real redis-server
// behave as one deployment: a page fetched through one is a cache hit through
// the other, a per-site limit holds across both, and killing Redis leaves
// calls working with a note (and `dsh doctor` saying so). Without the Redis
// row each process keeps its own cache.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { RedisServer } from '../packages/state-redis/tests/redis-server.js'
import { dsh, tempHome } from './helpers.js'
import { connect, createToken, HttpDsh } from './mcp-http-process.js'
import { articleHtml } from './page-server.js'

/** Pages on 127.0.0.1 that record every request: its path, its Host and when it arrived. */
async function countingPages() {
  const requests: { path: string; host: string; at: number }[] = []
  const server: Server = createServer((request, response) => {
    requests.push({ path: request.url ?? '', host: String(request.headers.host).replace(/:\d+$/, ''), at: performance.now() })
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(articleHtml(5))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    requests,
    port,
    url: (host: string, path: string) => `http://${host}:${port}${path}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

type Pages = Awaited<ReturnType<typeof countingPages>>

/** The fetch row of both compositions: loopback trusted, three test names pinned to it, a limit on two of them. */
function fetchRow(): string {
  return `- id: web-fetch-http
  config:
    privateHosts: ['127.0.0.1', 'cached.test', 'per-minute.test', 'per-second.test']
    resolve: { cached.test: 127.0.0.1, per-minute.test: 127.0.0.1, per-second.test: 127.0.0.1 }
    limitPerDomainOverrides:
      per-minute.test: { requests: 3, intervalSeconds: 60 }
      per-second.test: { requests: 2, intervalSeconds: 1 }
`
}

async function fetchPage(client: Client, url: string): Promise<any> {
  return client.callTool({ name: 'web_fetch', arguments: { url } })
}

describe('two dsh mcp --http processes sharing one Redis', () => {
  let redis: RedisServer
  let pages: Pages
  let home: string
  let overlay: string
  let servers: HttpDsh[] = []
  let clients: Client[] = []

  before(async () => {
    ;[redis, pages, home] = await Promise.all([RedisServer.start({ password: 'redis-test-password' }), countingPages(), tempHome()])
    const stored = await dsh(['credentials', 'set', 'DSH_REDIS_URL'], { home, input: `redis://:redis-test-password@127.0.0.1:${redis.port}/0` })
    assert.equal(stored.code, 0, stored.stderr)
    overlay = join(home, 'shared.cordis.yml')
    await writeFile(overlay, `- id: state-redis
  name: dsh-state-redis
- id: web
  # A generous stateTimeoutMs: a loaded machine must not turn a slow answer into a note here.
  config: { searchProvider: deepseek-official, fetchProvider: http, stateRetryMs: 200, stateTimeoutMs: 2000 }
${fetchRow()}`)
    // Without tokens (loopback, --no-auth): with the Redis row the tokens are on Redis too, and while it is
    // down a token cannot be checked and is refused with 503 (mcp-tokens-shared.spec.ts); this suite shows
    // that the cache and the limits never fail a call.
    servers = await Promise.all([0, 1].map(() => HttpDsh.start(['--no-auth', '--preset', 'standard', '--config', overlay], home)))
    clients = await Promise.all(servers.map((server) => connect(server.url)))
  })
  after(async () => {
    for (const client of clients) await client.close().catch(() => {})
    await Promise.all(servers.map((server) => server.stop()))
    await Promise.all([redis?.close(), pages?.close()])
    await rm(home, { recursive: true, force: true })
  })

  it('a page fetched through one process is a cache hit through the other: one request reaches the site', async () => {
    const [first, second] = clients
    const url = pages.url('cached.test', '/article')
    const fetched = await fetchPage(first!, url)
    assert.equal(fetched.isError, false, fetched.content[0].text)
    assert.equal(fetched.structuredContent.provenance.cacheHit, false)
    const again = await fetchPage(second!, url)
    assert.equal(again.isError, false, again.content[0].text)
    assert.equal(again.structuredContent.provenance.cacheHit, true)
    assert.equal(again.structuredContent.provenance.sourceSha256, fetched.structuredContent.provenance.sourceSha256)
    assert.equal(again.structuredContent.provenance.fetchedAt, fetched.structuredContent.provenance.fetchedAt, 'when the other process fetched it')
    assert.deepEqual([again.structuredContent.totalChars, again.structuredContent.metadata], [fetched.structuredContent.totalChars, fetched.structuredContent.metadata], 'the same page, from the shared snapshot')
    assert.match(again.content[0].text, /Paragraph 5 of the loopback article/)
    assert.deepEqual(pages.requests.filter((request) => request.host === 'cached.test').map((request) => request.path), ['/article'])
  })

  it('a limit of 3 requests per minute to a site holds across both: the calls over it end with WEB_RATE_LIMITED, saying when to retry, before reaching the site', async () => {
    const outcomes = []
    for (let call = 0; call < 5; call++) outcomes.push(await fetchPage(clients[call % 2]!, pages.url('per-minute.test', `/page-${call}`)))
    assert.deepEqual(outcomes.map((outcome) => outcome.isError), [false, false, false, true, true])
    for (const refused of outcomes.slice(3)) {
      assert.match(refused.content[0].text, /WEB_RATE_LIMITED/)
      assert.match(refused.content[0].text, /over the limit of the site per-minute\.test: 3 requests per 60 s \(limitPerDomainOverrides\["per-minute\.test"\] of the fetch row\).*Retry in \d+(\.\d)? s/)
    }
    assert.equal(pages.requests.filter((request) => request.host === 'per-minute.test').length, 3)
  })

  it('a limit of 2 requests per second holds across both: six calls at once all complete, in three windows', async () => {
    const outcomes = await Promise.all([0, 1, 2, 3, 4, 5].map((call) => fetchPage(clients[call % 2]!, pages.url('per-second.test', `/burst-${call}`))))
    for (const outcome of outcomes) assert.equal(outcome.isError, false, outcome.content[0].text)
    const arrivals = pages.requests.filter((request) => request.host === 'per-second.test').map((request) => request.at).sort((a, b) => a - b)
    assert.equal(arrivals.length, 6)
    // Two a window: the fifth request is in the third window, two seconds after the first began (less the first's way to the server).
    assert.ok(arrivals[4]! - arrivals[0]! >= 1900, `the fifth request came ${Math.round(arrivals[4]! - arrivals[0]!)} ms after the first`)
  })

  it('with Redis killed, calls through both still work and say so; dsh doctor warns; with Redis back, the cache is shared again', async () => {
    await redis.kill()
    for (const [index, client] of clients.entries()) {
      const outcome = await fetchPage(client, pages.url('cached.test', `/while-down-${index}`))
      assert.equal(outcome.isError, false, outcome.content[0].text)
      assert.match(outcome.content[0].text, /Note: The state store "redis" \(redis:\/\/127\.0\.0\.1:\d+\/0\) is not answering \(.+\): this call ran without the shared cache\./)
      assert.doesNotMatch(outcome.content[0].text, /redis-test-password/)
    }
    const limited = await fetchPage(clients[0]!, pages.url('per-second.test', '/while-down'))
    assert.equal(limited.isError, false)
    assert.match(limited.content[0].text, /the limit of the site per-second\.test was counted in this process only/)
    const doctor = await dsh(['doctor', '--preset', 'standard', '--config', overlay], { home })
    assert.match(doctor.stdout, /warn stateStore: the state store "redis" at redis:\/\/127\.0\.0\.1:\d+\/0 does not answer \(cannot connect to .+\): web calls run without the shared cache, count limits in each process only and say so, and the MCP token checks refuse every request/)
    assert.doesNotMatch(doctor.stdout, /redis-test-password/)

    await redis.start()
    await new Promise((resolve) => setTimeout(resolve, 300)) // stateRetryMs: 200
    const url = pages.url('cached.test', '/after-restart')
    const fetched = await fetchPage(clients[1]!, url)
    assert.doesNotMatch(fetched.content[0].text, /is not answering/)
    assert.equal((await fetchPage(clients[0]!, url)).structuredContent.provenance.cacheHit, true)
    const healthy = await dsh(['doctor', '--preset', 'standard', '--config', overlay], { home })
    assert.match(healthy.stdout, /ok {3}stateStore: the state store "redis" at redis:\/\/127\.0\.0\.1:\d+\/0 answers/)
  })
})

describe('two dsh mcp --http processes without the Redis row', () => {
  let pages: Pages
  let home: string
  let servers: HttpDsh[] = []
  let clients: Client[] = []
  before(async () => {
    ;[pages, home] = await Promise.all([countingPages(), tempHome()])
    const overlay = join(home, 'own.cordis.yml')
    await writeFile(overlay, fetchRow())
    const token = await createToken(home, 'agents')
    servers = await Promise.all([0, 1].map(() => HttpDsh.start(['--preset', 'standard', '--config', overlay], home)))
    clients = await Promise.all(servers.map((server) => connect(server.url, token)))
  })
  after(async () => {
    for (const client of clients) await client.close().catch(() => {})
    await Promise.all(servers.map((server) => server.stop()))
    await pages?.close()
    await rm(home, { recursive: true, force: true })
  })

  it('each keeps its own cache in memory (the default): a hit in the process that fetched, a new request from the other, no notes', async () => {
    const url = pages.url('cached.test', '/article')
    const first = await fetchPage(clients[0]!, url)
    assert.equal(first.structuredContent.provenance.cacheHit, false)
    assert.equal((await fetchPage(clients[0]!, url)).structuredContent.provenance.cacheHit, true)
    const other = await fetchPage(clients[1]!, url)
    assert.equal(other.structuredContent.provenance.cacheHit, false)
    assert.deepEqual(other.structuredContent.warnings, [])
    assert.equal(pages.requests.length, 2)
  })

  it('dsh doctor says, without a state row, that the state is each process\'s own and where the MCP tokens are', async () => {
    const doctor = await dsh(['doctor', '--preset', 'standard', '--offline'], { home })
    assert.match(doctor.stdout, /ok {3}stateStore: no state row: the fetch and search cache and the limits are this process's own, and the MCP tokens are kept in \$DSH_HOME\/mcp-tokens\.json/)
  })
})
