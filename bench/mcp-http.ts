/**
 * pnpm bench:mcp-http [--calls N] [--concurrency N]
 *
 * What serving web_fetch over MCP Streamable HTTP costs, and what the shared
 * cache on Redis costs and saves. The same loopback article (a different URL
 * each call, so no cache can answer, unless said) is fetched through these
 * paths in one run:
 * - direct: `ctx.tools.invoke('web_fetch')` in this process (validation,
 *   session records, the fetcher; no MCP);
 * - 1 process: `dsh mcp --http` in a child process, through the SDK's
 *   Streamable HTTP client, with a bearer token;
 * - 2 processes: two such children, the calls spread over them in turn as a
 *   round-robin load balancer would.
 * - the two HTTP paths again with the Redis row (dsh-state-redis, a redis-server
 *   started here on loopback): each new page is looked up in Redis and
 *   stored there;
 * - cache hits: pages fetched once beforehand through the first process,
 *   then fetched again through both, each call answered from Redis (and the
 *   direct path's hits from its memory store, for comparison).
 * Each path runs `--concurrency` calls at once until `--calls` are done and
 * prints calls per second, p50 and p95 latency, and each figure as a ratio
 * to the direct path.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { compose } from '../packages/harness/src/compose/boot.js'
import type { SessionService } from '../packages/harness/src/session/index.js'
import type { ToolsService } from '../packages/harness/src/tools/index.js'
import { articleHtml } from '../tests/page-server.js'
import { RedisServer } from '../packages/state-redis/tests/redis-server.js'

const ROOT = resolve(import.meta.dirname, '..')
const CLI = join(ROOT, 'packages/cli/dist/dsh.js')

const { values } = parseArgs({ options: { calls: { type: 'string', default: '300' }, concurrency: { type: 'string', default: '8' } } })
const CALLS = Number(values.calls)
const CONCURRENCY = Number(values.concurrency)

const home = mkdtempSync(join(tmpdir(), 'dsh-bench-mcp-http-'))
const redis = await RedisServer.start()
const env = { ...process.env, DSH_HOME: home, DEEPSEEK_API_KEY: '', OPENAI_API_KEY: '', DSH_REDIS_URL: redis.url }
process.env.DSH_HOME = home
const overlay = join(home, 'trust-loopback.cordis.yml')
writeFileSync(overlay, `- id: web-fetch-http\n  config: { privateHosts: ['127.0.0.1'] }\n`)
const redisOverlay = join(home, 'redis.cordis.yml')
writeFileSync(redisOverlay, `- id: state-redis\n  name: dsh-state-redis\n`)

const pages = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
  response.end(articleHtml())
})
await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done))
const origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
let page = 0
const nextUrl = () => `${origin}/article/${page++}`
/** Pages fetched once before a cache-hit path; its calls go through them in turn. */
const warmed: string[] = []
let warmedNext = 0
const warmedUrl = () => warmed[warmedNext++ % warmed.length]!

/** Runs `call` CALLS times, CONCURRENCY at once; latencies in ms and the wall time. */
async function measure(call: (worker: number) => Promise<void>): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = []
  let started = 0
  const begin = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, worker) => {
    while (started < CALLS) {
      started++
      const at = performance.now()
      await call(worker)
      latencies.push(performance.now() - at)
    }
  }))
  return { latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - begin) / 1000 }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]
}

function startServer(overlays: string[]): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const configs = overlays.flatMap((file) => ['--config', file])
  const child = spawn(process.execPath, [CLI, 'mcp', '--http', '127.0.0.1:0', '--preset', 'standard', ...configs, '--calls-per-minute', '1000000', '--max-concurrent-calls', '1000'], { cwd: ROOT, env })
  return new Promise((done, fail) => {
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)
      if (match) done({ child, url: match[1] })
    })
    child.once('exit', (code) => fail(new Error(`dsh mcp --http exited (${code}): ${stderr}`)))
  })
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return client
}

async function overHttp(servers: string[], token: string, options: { hits?: boolean } = {}) {
  // One client per worker, each bound to a server in turn: a round-robin balancer.
  const clients = await Promise.all(Array.from({ length: CONCURRENCY }, (_, worker) => connect(servers[worker % servers.length], token)))
  const warm = await clients[0].callTool({ name: 'web_fetch', arguments: { url: nextUrl() } })
  if ((warm as any).isError) throw new Error(`web_fetch failed: ${(warm as any).content[0].text}`)
  if (options.hits) {
    // Each page once, through the first process only: every measured call is then a hit in the shared cache.
    warmed.length = 0
    for (let index = 0; index < 100; index++) {
      const url = nextUrl()
      await clients[0].callTool({ name: 'web_fetch', arguments: { url } })
      warmed.push(url)
    }
  }
  const result = await measure(async (worker) => {
    const outcome: any = await clients[worker].callTool({ name: 'web_fetch', arguments: { url: options.hits ? warmedUrl() : nextUrl() } })
    if (outcome.isError) throw new Error(outcome.content[0].text)
    if (options.hits && outcome.structuredContent?.provenance?.cacheHit !== true) throw new Error('a cache-hit path missed the cache')
    if (outcome.structuredContent?.warnings?.length) throw new Error(`web_fetch noted: ${outcome.structuredContent.warnings.join(' ')}`)
  })
  await Promise.all(clients.map((client) => client.close()))
  return result
}

const rows: { path: string; latencies: number[]; seconds: number }[] = []
const children: ChildProcessWithoutNullStreams[] = []
try {
  const composition = await compose({ preset: 'standard', overlays: [overlay], home })
  try {
    const tools = composition.ctx.get('tools') as ToolsService
    const session = await (composition.ctx.get('session') as SessionService).create()
    const warm = await tools.invoke('web_fetch', { url: nextUrl() }, { session })
    if (warm.isError) throw new Error(`web_fetch failed: ${warm.content}`)
    rows.push({ path: 'direct (tools.invoke, no MCP)', ...(await measure(async () => {
      const outcome = await tools.invoke('web_fetch', { url: nextUrl() }, { session })
      if (outcome.isError) throw new Error(outcome.content)
    })) })
    warmed.length = 0
    for (let index = 0; index < 100; index++) {
      const url = nextUrl()
      await tools.invoke('web_fetch', { url }, { session })
      warmed.push(url)
    }
    rows.push({ path: 'direct, hits (memory store)', ...(await measure(async () => {
      const outcome = await tools.invoke('web_fetch', { url: warmedUrl() }, { session })
      if (outcome.isError || (outcome.structured as any)?.provenance?.cacheHit !== true) throw new Error(`not a hit: ${outcome.content.slice(0, 200)}`)
    })) })
  } finally {
    await composition.dispose()
  }

  const token = execFileSync(process.execPath, [CLI, 'mcp', 'token', 'create', 'bench'], { env, cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  const first = await startServer([overlay])
  children.push(first.child)
  rows.push({ path: 'MCP over HTTP, 1 process', ...(await overHttp([first.url], token)) })
  const second = await startServer([overlay])
  children.push(second.child)
  rows.push({ path: 'MCP over HTTP, 2 processes', ...(await overHttp([first.url, second.url], token)) })
  for (const child of children.splice(0)) child.kill('SIGTERM')

  const shared = [await startServer([overlay, redisOverlay])]
  children.push(shared[0]!.child)
  rows.push({ path: 'HTTP + Redis, 1 process', ...(await overHttp([shared[0]!.url], token)) })
  shared.push(await startServer([overlay, redisOverlay]))
  children.push(shared[1]!.child)
  rows.push({ path: 'HTTP + Redis, 2 processes', ...(await overHttp(shared.map((server) => server.url), token)) })
  rows.push({ path: 'HTTP + Redis, 2 proc., hits', ...(await overHttp(shared.map((server) => server.url), token, { hits: true })) })
} finally {
  for (const child of children) child.kill('SIGTERM')
  pages.closeAllConnections()
  pages.close()
  await redis.close()
}

const base = rows[0]
const baseRate = CALLS / base.seconds
console.log(`web_fetch of a loopback article (${articleHtml().length} bytes of HTML), ${CALLS} calls, ${CONCURRENCY} at once, each to a new URL unless "hits"; Node ${process.version}`)
console.log(['path'.padEnd(32), 'calls/s'.padStart(8), 'p50 ms'.padStart(8), 'p95 ms'.padStart(8), 'calls/s ratio'.padStart(14), 'p50 ratio'.padStart(10), 'p95 ratio'.padStart(10)].join(' '))
for (const row of rows) {
  const rate = CALLS / row.seconds
  const p50 = percentile(row.latencies, 50)
  const p95 = percentile(row.latencies, 95)
  console.log([
    row.path.padEnd(32),
    rate.toFixed(0).padStart(8),
    p50.toFixed(1).padStart(8),
    p95.toFixed(1).padStart(8),
    (rate / baseRate).toFixed(2).padStart(14),
    (p50 / percentile(base.latencies, 50)).toFixed(2).padStart(10),
    (p95 / percentile(base.latencies, 95)).toFixed(2).padStart(10),
  ].join(' '))
}
rmSync(home, { recursive: true, force: true })
