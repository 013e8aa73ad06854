import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as web from 'dsh-web'
import * as stateRedis from '../src/index.js'
import { RedisConnection, RedisStateStore } from '../src/index.js'
import { redactRedisUrl } from '../src/redis-connection.js'
import type { CredentialsService, ResolvedCredential } from 'dsh-host'
import { RedisServer } from './redis-server.js'

function store(target: () => { url: string; password?: string }, keyPrefix = 'test:', maxEntryBytes = 1024 * 1024) {
  const connection = new RedisConnection({ connectTimeoutMs: 1000, resolveTarget: async () => target() })
  return { connection, store: new RedisStateStore(connection, { keyPrefix, maxEntryBytes, urlCredential: 'DSH_REDIS_URL' }) }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the Redis state store, against a real redis-server', () => {
  let redis: RedisServer
  const open: RedisConnection[] = []
  const make = (keyPrefix = 'test:', maxEntryBytes?: number) => {
    const made = store(() => ({ url: redis.url }), keyPrefix, maxEntryBytes)
    open.push(made.connection)
    return made.store
  }
  before(async () => {
    redis = await RedisServer.start()
  })
  after(async () => {
    for (const connection of open) await connection.close()
    await redis?.close()
  })

  it('stores a value under every key for its time to live, and two stores (two processes) read each other\'s', async () => {
    const [first, second] = [make(), make()]
    await first.write(['doc:a', 'doc:b'], '{"text":"shared"}', 60_000)
    assert.equal(await second.read('doc:a'), '{"text":"shared"}')
    assert.equal(await second.read('doc:b'), '{"text":"shared"}')
    assert.equal(await second.read('doc:c'), undefined)
    await first.write(['short'], 'soon gone', 50)
    await pause(150)
    assert.equal(await second.read('short'), undefined, 'PX ended it')
  })

  it('keeps deployments apart by keyPrefix', async () => {
    await make('one:').write(['same'], 'of one', 60_000)
    assert.equal(await make('two:').read('same'), undefined)
  })

  it('does not store a value over maxEntryBytes, and the key stops naming an older value', async () => {
    const small = make('small:', 1024)
    await small.write(['page'], 'old', 60_000)
    await small.write(['page'], 'x'.repeat(2048), 60_000)
    assert.equal(await small.read('page'), undefined)
  })

  it('counts requests per window across stores (rate-limiter-flexible on the same Redis), with the wait until the next window', async () => {
    const [first, second] = [make('rate-a:'), make('rate-a:')]
    const rule = { requests: 2, intervalSeconds: 60 }
    assert.deepEqual(await first.consume('fetch:example.com', rule), { admitted: true })
    assert.deepEqual(await second.consume('fetch:example.com', rule), { admitted: true })
    const refused = await first.consume('fetch:example.com', rule)
    assert.equal(refused.admitted, false)
    assert.ok(!refused.admitted && refused.retryAfterMs > 50_000 && refused.retryAfterMs <= 60_000)
    assert.deepEqual(await second.consume('fetch:example.org', rule), { admitted: true }, 'another bucket')
  })

  it('holds slots across stores until released, and frees the slot of a holder that never releases when its lease ends', async () => {
    const [first, second] = [make('slots:'), make('slots:')]
    const held = await first.enter('fetch:example.com', 1, 60_000)
    assert.equal(held.admitted, true)
    const refused = await second.enter('fetch:example.com', 1, 60_000)
    assert.equal(refused.admitted, false)
    assert.ok(!refused.admitted && refused.retryAfterMs > 0)
    if (held.admitted) await held.release()
    const next = await second.enter('fetch:example.com', 1, 100)
    assert.equal(next.admitted, true, 'released')
    // `next` is never released, as by a process that died: its lease of 100 ms ends it.
    assert.equal((await first.enter('fetch:example.com', 1, 60_000)).admitted, false)
    await pause(200)
    assert.equal((await first.enter('fetch:example.com', 1, 60_000)).admitted, true)
  })

  it('keeps records with no expiry in a hash per map, replaced across stores only from the value each expects (compare-and-set)', async () => {
    const [first, second] = [make('records:'), make('records:')]
    assert.deepEqual(await first.readRecords('tokens'), {})
    assert.equal(await first.replaceRecord('tokens', 'agents', undefined, '{"v":1}'), true)
    assert.equal(await second.replaceRecord('tokens', 'agents', undefined, '{"v":"other"}'), false, 'the other process came first')
    assert.equal(await second.replaceRecord('tokens', 'agents', '{"v":0}', '{"v":2}'), false, 'not what it holds')
    assert.equal(await second.replaceRecord('tokens', 'agents', '{"v":1}', '{"v":2}'), true)
    assert.equal(await second.replaceRecord('tokens', 'ci', undefined, ''), true, 'an empty value is a value')
    assert.deepEqual(await first.readRecords('tokens'), { agents: '{"v":2}', ci: '' })
    assert.equal(await first.replaceRecord('tokens', 'ci', undefined, 'x'), false, 'an empty value is not absence')
    assert.deepEqual(await make('elsewhere:').readRecords('tokens'), {}, 'keyPrefix keeps deployments apart')
    const raw = store(() => ({ url: redis.url }))
    open.push(raw.connection)
    assert.equal(await raw.connection.run((client) => client.pttl('records:records:tokens')), -1, 'no time to live')
  })

  it('rejects at once while Redis is down, and works again with a new connection once it is back', async () => {
    const survivor = make('restart:')
    await survivor.write(['k'], 'v', 60_000)
    await redis.kill()
    const started = Date.now()
    await assert.rejects(survivor.read('k'))
    await assert.rejects(survivor.readRecords('tokens'))
    await assert.rejects(survivor.replaceRecord('tokens', 'a', undefined, 'v'))
    await assert.rejects(survivor.ping(), /cannot connect to redis:\/\/127\.0\.0\.1:\d+/)
    assert.ok(Date.now() - started < 5000, 'no command waits for a reconnect')
    await redis.start()
    await survivor.ping()
    assert.equal(await survivor.read('k'), undefined, 'the killed server kept nothing (no persistence)')
    await survivor.write(['k'], 'again', 60_000)
    assert.equal(await survivor.read('k'), 'again')
  })
})

class MemoryCredentials implements CredentialsService {
  readonly values = new Map<string, string>()
  resolve(ref: string): ResolvedCredential | undefined {
    const value = this.values.get(ref)
    return value === undefined ? undefined : { value, source: 'store' }
  }
}

describe('dsh-state-redis as a plugin', () => {
  let guarded: RedisServer
  let other: RedisServer
  before(async () => {
    ;[guarded, other] = await Promise.all([RedisServer.start({ password: 'correct horse' }), RedisServer.start()])
  })
  after(async () => {
    await Promise.all([guarded?.close(), other?.close()])
  })

  async function mount(credentials: MemoryCredentials, config: Partial<stateRedis.Config> = {}) {
    const ctx = new Context()
    ctx.plugin({ name: 'host', apply: (host: Context) => void host.set('credentials', credentials) })
    ctx.plugin(web, {})
    ctx.plugin(stateRedis, config)
    await ctx.start()
    await ctx.lifecycle.flush()
    return ctx
  }

  it('provides ctx.stateStore on Redis, which the seam uses for being mounted, connects with the URL and password of the credentials named, and resolves them again at the next connect', async () => {
    const credentials = new MemoryCredentials()
    credentials.values.set('DSH_REDIS_URL', guarded.url)
    credentials.values.set('REDIS_PASSWORD', 'correct horse')
    const ctx = await mount(credentials, { passwordCredential: 'REDIS_PASSWORD' })
    try {
      assert.equal(ctx.get('stateStore')?.id, 'redis')
      assert.equal(ctx.web.state.status().shared, true)
      await ctx.get('stateStore')!.ping()
      assert.equal(ctx.web.state.status().location, guarded.url)
      const notes: string[] = []
      await ctx.web.state.write(['k'], 'through the seam', 60_000, notes)
      assert.equal(await ctx.web.state.read('k', notes), 'through the seam')
      assert.deepEqual(notes, [])
      // The URL is rotated in the store; the next connection (after this one ends) takes it.
      credentials.values.set('DSH_REDIS_URL', other.url)
      await guarded.stop()
      await guarded.start()
      assert.equal(await ctx.web.state.read('k', notes), undefined, 'another server')
      assert.deepEqual(notes, [])
      assert.equal(ctx.web.state.status().location, other.url)
    } finally {
      await ctx.stop()
    }
  })

  it('a wrong password or a missing URL credential leaves calls working, with a note that names the credential, never its value', async () => {
    const credentials = new MemoryCredentials()
    credentials.values.set('DSH_REDIS_URL', `redis://:wrong-secret@127.0.0.1:${guarded.port}`)
    const ctx = await mount(credentials)
    try {
      const notes: string[] = []
      assert.equal(await ctx.web.state.read('k', notes), undefined)
      assert.match(notes[0]!, /WRONGPASS|NOAUTH|invalid username-password/i)
      assert.doesNotMatch(notes.join('\n'), /wrong-secret/)
      assert.equal(ctx.web.state.status().location, `redis://127.0.0.1:${guarded.port}`)
    } finally {
      await ctx.stop()
    }
    const bare = await mount(new MemoryCredentials())
    try {
      await assert.rejects(bare.get('stateStore')!.ping(), { message: 'the credential DSH_REDIS_URL, which holds the Redis URL, is not set: dsh credentials set DSH_REDIS_URL (or export DSH_REDIS_URL)' })
      assert.match(bare.web.state.status().location, /the credential DSH_REDIS_URL/)
    } finally {
      await bare.stop()
    }
  })

  it('a slow Redis (DEBUG SLEEP) is skipped after stateTimeoutMs: the call goes on at once with the note, and the store is asked again after stateRetryMs', async () => {
    const slow = await RedisServer.start({ debugCommand: true })
    const credentials = new MemoryCredentials()
    credentials.values.set('DSH_REDIS_URL', slow.url)
    const ctx = new Context()
    ctx.plugin({ name: 'host', apply: (host: Context) => void host.set('credentials', credentials) })
    ctx.plugin(web, { stateTimeoutMs: 100, stateRetryMs: 300 })
    ctx.plugin(stateRedis, {})
    await ctx.start()
    await ctx.lifecycle.flush()
    const sleeper = store(() => ({ url: slow.url }))
    try {
      await ctx.web.state.write(['k'], 'v', 60_000, [])
      const sleeping = sleeper.connection.run((client) => client.call('DEBUG', 'SLEEP', '1'))
      await pause(50)
      const notes: string[] = []
      assert.equal(await ctx.web.state.read('k', notes), undefined)
      assert.match(notes[0]!, /^The state store "redis" \(redis:\/\/127\.0\.0\.1:\d+\) is not answering \(no answer within 100 ms; since .+\): this call ran without the shared cache\.$/)
      const skipped: string[] = []
      await ctx.web.state.read('k', skipped)
      assert.deepEqual(skipped, notes, 'skipped while stateRetryMs runs, and said')
      await sleeping
      await pause(350)
      const healthy: string[] = []
      assert.equal(await ctx.web.state.read('k', healthy), 'v')
      assert.deepEqual(healthy, [])
      assert.equal(ctx.web.state.status().failing, undefined)
    } finally {
      await sleeper.connection.close()
      await ctx.stop()
      await slow.close()
    }
  })

  it('redacts a password from a URL it shows', () => {
    assert.equal(redactRedisUrl('redis://agent:s3cret@10.0.0.7:6380/2'), 'redis://agent@10.0.0.7:6380/2')
    assert.equal(redactRedisUrl('https://example.com'), '<not a redis:// URL>')
  })
})
