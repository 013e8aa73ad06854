// The MCP tokens on the composition's shared state store: two `dsh mcp --http`
// processes with different $DSH_HOME folders (two machines) and one real
// redis-server, mounted through the shipped overlay config/overlays/redis-state.cordis.yml
// with the URL stored as a credential. A token created through one home works
// on both; revoked through the other, it is refused by both at the next
// request; while Redis is down every request is refused with 503 (fail
// closed), and the token commands fail rather than fall back to a file.
import assert from 'node:assert/strict'
import { access, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { RedisConnection } from 'dsh-state-redis'
import { RedisServer } from '../packages/state-redis/tests/redis-server.js'
import { hashToken } from '../packages/mcp/src/auth/token-store.js'
import { dsh, onlyJson, ROOT, tempHome } from './helpers.js'
import { connect, HttpDsh } from './mcp-http-process.js'

const PASSWORD = 'redis-token-password'

/** One tools/list POST with the token, as any client sends it: the status, the challenge, Retry-After and the JSON-RPC body. */
async function post(url: string, token: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  return { status: response.status, challenge: response.headers.get('www-authenticate'), retryAfter: response.headers.get('retry-after'), body: await response.json() as any }
}

const exists = (path: string) => access(path).then(() => true, () => false)

describe('MCP tokens on the shared state store (two homes, one Redis)', () => {
  let redis: RedisServer
  let homes: string[] = []
  let config: string[] = []
  let servers: HttpDsh[] = []
  const clients: Client[] = []
  const token = (home: string, ...args: string[]) => dsh(['mcp', 'token', ...args, ...config], { home })

  before(async () => {
    ;[redis, ...homes] = await Promise.all([RedisServer.start({ password: PASSWORD }), tempHome(), tempHome()])
    for (const home of homes) {
      const stored = await dsh(['credentials', 'set', 'DSH_REDIS_URL'], { home, input: `redis://:${PASSWORD}@127.0.0.1:${redis.port}/0` })
      assert.equal(stored.code, 0, stored.stderr)
    }
    config = ['--config', join(ROOT, 'config/overlays/redis-state.cordis.yml')]
  })
  after(async () => {
    for (const client of clients) await client.close().catch(() => {})
    await Promise.all(servers.map((server) => server.stop()))
    await redis?.close()
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })))
  })

  it('a token created through one home is kept on Redis (a hash, never in either home) and works through the processes of both', async () => {
    const [homeA, homeB] = homes as [string, string]
    const created = await token(homeA, 'create', 'agents')
    assert.equal(created.code, 0, created.stderr)
    const agents = created.stdout.trim()
    assert.match(agents, /^dsh_[A-Za-z0-9_-]{43}$/)
    assert.match(created.stderr, /only its hash is kept \(the shared state store "redis" \(redis:\/\/127\.0\.0\.1:\d+\/0\), records "mcp-tokens"\)/)
    assert.doesNotMatch(created.stderr, new RegExp(PASSWORD))
    for (const home of homes) assert.equal(await exists(join(home, 'mcp-tokens.json')), false, 'no file store in either home')

    const raw = new RedisConnection({ connectTimeoutMs: 1000, resolveTarget: async () => ({ url: redis.url, password: PASSWORD }) })
    const stored = await raw.run((client) => client.hgetall('dsh:records:mcp-tokens'))
    await raw.close()
    assert.deepEqual(Object.keys(stored), ['agents'])
    assert.equal(JSON.parse(stored.agents!).sha256, hashToken(agents))
    assert.ok(!stored.agents!.includes(agents), 'the token itself is never stored')

    const listed = onlyJson(await token(homeB, 'list', '--json'))
    assert.match(listed.store, /^the shared state store "redis" \(redis:\/\/127\.0\.0\.1:\d+\/0\), records "mcp-tokens"$/)
    assert.deepEqual(listed.tokens.map((entry: any) => [entry.name, entry.revoked]), [['agents', null]])
    const human = await token(homeB, 'list')
    assert.match(human.stdout.trim(), /^MCP tokens in the shared state store "redis" \(redis:\/\/127\.0\.0\.1:\d+\/0\), records "mcp-tokens":\nagents {2}created \S+ {2}no expiry {2}active$/)

    servers = await Promise.all(homes.map((home) => HttpDsh.start(config, home)))
    for (const server of servers) assert.match(server.stderr, /tokens are checked at every request in the shared state store "redis"/)
    for (const server of servers) clients.push(await connect(server.url, agents))
    for (const client of clients) assert.ok((await client.listTools()).tools.length > 0)
  })

  it('revoked through the other home, the token is refused by both processes at their next request: 401 with the Bearer challenge', async () => {
    const [homeA, homeB] = homes as [string, string]
    const other = (await token(homeA, 'create', 'other')).stdout.trim()
    const listed = onlyJson(await token(homeA, 'list', '--json'))
    assert.deepEqual(listed.tokens.map((entry: any) => entry.name), ['agents', 'other'])
    for (const server of servers) assert.equal((await post(server.url, other)).status, 200)

    const revoked = await token(homeB, 'revoke', 'other')
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.match(revoked.stdout, /Revoked the MCP token "other" \(\d{4}-.+\) in the shared state store "redis"/)
    for (const server of servers) {
      const refused = await post(server.url, other)
      assert.equal(refused.status, 401)
      assert.equal(refused.challenge, 'Bearer realm="dsh-mcp", error="invalid_token", error_description="token revoked"')
      assert.match(refused.body.error.message, /^Refused: the token "other" was revoked\.$/)
    }
    for (const client of clients) assert.ok((await client.listTools()).tools.length, 'the token not revoked still works')
    const again = await token(homeA, 'create', 'other')
    assert.equal(again.code, 0, 'the name of a revoked token can be used again')
    assert.equal((await post(servers[1]!.url, again.stdout.trim())).status, 200)
    assert.equal((await post(servers[1]!.url, other)).status, 401, 'the old token stays refused')
  })

  it('while Redis is down every request is refused with 503 naming the store (fail closed), and the token commands fail without falling back to a file; a Redis that lost its data accepts no token', async () => {
    const [homeA, homeB] = homes as [string, string]
    const agents = (await token(homeA, 'create', 'while-up')).stdout.trim()
    assert.equal((await post(servers[0]!.url, agents)).status, 200)
    await redis.kill()
    for (const server of servers) {
      const refused = await post(server.url, agents)
      assert.equal(refused.status, 503)
      assert.equal(refused.retryAfter, '5')
      assert.equal(refused.body.error.data.code, 'MCP_TOKEN_STORE_UNAVAILABLE')
      assert.match(refused.body.error.message, /^Refused: the token cannot be checked now, so the request was not run\. The MCP tokens cannot be checked or changed: cannot read the records "mcp-tokens": the state store "redis" \(redis:\/\/127\.0\.0\.1:\d+\/0\) is not answering \(cannot connect to/)
      assert.doesNotMatch(JSON.stringify(refused.body), new RegExp(PASSWORD))
      assert.match(server.stderr, /dsh mcp: Refused: the token cannot be checked now/)
    }
    const revoke = await token(homeB, 'revoke', 'while-up')
    assert.equal(revoke.code, 1)
    assert.match(revoke.stderr, /The MCP tokens cannot be checked or changed: cannot read the records "mcp-tokens": the state store "redis" .* is not answering/)
    const list = await token(homeB, 'list')
    assert.equal(list.code, 1)
    for (const home of homes) assert.equal(await exists(join(home, 'mcp-tokens.json')), false, 'no fall back to a file store')

    await redis.start() // without persistence: the records are gone
    for (const server of servers) {
      const refused = await post(server.url, agents)
      assert.equal(refused.status, 401)
      assert.match(String(refused.challenge), /error_description="unknown token"/)
    }
  })

  it('the tokens follow the state row, not the web row: an overlay that replaces the web row keeps them on Redis; without the state row they are the home\'s file', async () => {
    const overlay = join(homes[1]!, 'other-web.cordis.yml')
    await writeFile(overlay, '- id: web\n  config: { searchProvider: deepseek-official, fetchProvider: http, memoryMaxBytes: 1024 }\n')
    const created = await dsh(['mcp', 'token', 'create', 'web-row-replaced', ...config, '--config', overlay], { home: homes[1]! })
    assert.equal(created.code, 0, created.stderr)
    const listed = await dsh(['mcp', 'token', 'list', '--json', ...config], { home: homes[0]! })
    assert.match(listed.stdout, /"web-row-replaced"/, 'on Redis, seen through the other home')
    const own = await dsh(['mcp', 'token', 'list', '--json'], { home: homes[1]! })
    assert.equal(own.code, 0, own.stderr)
    assert.doesNotMatch(own.stdout, /web-row-replaced/, 'not in the home\'s file')
  })
})
