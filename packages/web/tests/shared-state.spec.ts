import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { Context } from 'cordis'
import * as web from 'dsh-web'
import { MemoryStateStore, type SearchProvider, SharedState, WebError } from 'dsh-web'
import type { LimitRule, SessionEvent, SessionHandle, StateStore } from 'dsh-host'
import { BoundedCache } from '../src/bounded-cache.js'

const call = (deadlineInMs?: number) => ({ signal: new AbortController().signal, ...(deadlineInMs === undefined ? {} : { deadline: Date.now() + deadlineInMs }) })

function memoryState(memory = new MemoryStateStore(1024 * 1024)) {
  return new SharedState({ selected: () => memory, memory, timeoutMs: 100, retryAfterFailureMs: 60_000 })
}

const limit = (rule: LimitRule) => ({ bucket: 'fetch:example.com', rule, subject: 'the site example.com', what: 'Fetching https://example.com', setting: 'limitPerDomain of the fetch row', leaseMs: 10_000 })

/**
 * A state store that never answers: what a Redis that hangs (or a dead
 * network path) looks like to the seam. Not a mock of a client: a store of
 * its own, provided as ctx.stateStore like any state row's.
 */
function silentStore(id: string): StateStore & { asked: number } {
  const store = {
    id,
    asked: 0,
    describe: () => 'nowhere',
    ping: () => new Promise<void>(() => {}),
    read: () => ((store.asked++), new Promise<string | undefined>(() => {})),
    write: () => ((store.asked++), new Promise<void>(() => {})),
    consume: () => ((store.asked++), new Promise<never>(() => {})),
    enter: () => ((store.asked++), new Promise<never>(() => {})),
    readRecords: () => ((store.asked++), new Promise<never>(() => {})),
    replaceRecord: () => ((store.asked++), new Promise<never>(() => {})),
  }
  return store
}

describe('bounded cache (the memory store)', () => {
  it('is bounded by bytes, least recently used first, and by each entry\'s time', () => {
    let now = 0
    const cache = new BoundedCache<{ sizeBytes: number; name: string }>(100, () => now)
    cache.set('a', { sizeBytes: 40, name: 'a' }, 1000)
    cache.set('b', { sizeBytes: 40, name: 'b' }, 1000)
    assert.equal(cache.get('a')?.name, 'a')
    cache.set('c', { sizeBytes: 40, name: 'c' }, 5000)
    assert.equal(cache.get('b'), undefined, 'b was the least recently used')
    assert.equal(cache.get('a')?.name, 'a')
    cache.set('huge', { sizeBytes: 101, name: 'huge' }, 1000)
    assert.equal(cache.get('huge'), undefined, 'an entry larger than the cache is not kept')
    now = 1000
    assert.equal(cache.get('a'), undefined, 'expired')
    assert.equal(cache.get('c')?.name, 'c', 'its own time to live is longer')
    assert.equal(cache.size, 1)
  })

  it('counts an entry under two keys once, keeps both keys on a hit through either, and evicts them together', () => {
    const cache = new BoundedCache<{ sizeBytes: number; name: string }>(100, () => 0)
    cache.set(['requested', 'final'], { sizeBytes: 40, name: 'redirected' }, 1000)
    cache.set('b', { sizeBytes: 40, name: 'b' }, 1000)
    assert.equal(cache.size, 2, 'a budget of 100 holds 40 + 40 (the two keys were counted as 80)')
    assert.equal(cache.get('requested')?.name, 'redirected')
    assert.equal(cache.get('b')?.name, 'b')
    cache.set('c', { sizeBytes: 40, name: 'c' }, 1000)
    assert.equal(cache.get('final'), undefined, 'the least recently used entry left under its final key...')
    assert.equal(cache.get('requested'), undefined, '...and under its requested key')
    assert.deepEqual([cache.get('b')?.name, cache.get('c')?.name, cache.size], ['b', 'c', 2])
    // A key taken over by a new entry stops naming the old one; an entry left with no key goes.
    cache.set(['b', 'c'], { sizeBytes: 10, name: 'both' }, 1000)
    assert.deepEqual([cache.get('b')?.name, cache.get('c')?.name, cache.size], ['both', 'both', 1])
    cache.set('d', { sizeBytes: 90, name: 'd' }, 1000)
    assert.equal(cache.get('d')?.name, 'd', '10 + 90 fit: the replaced entries no longer count')
    // A value that cannot be kept still takes its key off the old entry.
    cache.set('d', { sizeBytes: 1000, name: 'too big' }, 1000)
    assert.equal(cache.get('d'), undefined)
  })
})

describe('shared state: limits', () => {
  it('admits `requests` per interval, then waits within the deadline for the next window', async () => {
    const state = memoryState()
    const notes: string[] = []
    for (let request = 0; request < 2; request++) await state.acquire(limit({ requests: 2, intervalSeconds: 1 }), call(5000), notes)
    let admitted = false
    const third = state.acquire(limit({ requests: 2, intervalSeconds: 1 }), call(5000), notes).then(() => (admitted = true))
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(admitted, false, 'the third request of the window waits')
    await third
    assert.equal(admitted, true, 'and goes in the next window')
    assert.deepEqual(notes, [])
  })

  it('ends a request whose wait would outlast its deadline at once with WEB_RATE_LIMITED saying when to retry', async () => {
    const state = memoryState()
    await state.acquire(limit({ requests: 1, intervalSeconds: 60 }), call(5000), [])
    const started = Date.now()
    const error = await state.acquire(limit({ requests: 1, intervalSeconds: 60 }), call(5000), []).then(() => undefined, (error) => error)
    assert.ok(WebError.is(error), String(error))
    assert.equal(error.code, 'WEB_RATE_LIMITED')
    assert.equal(error.retryable, true)
    assert.ok(error.details.retryAfterMs! > 50_000 && error.details.retryAfterMs! <= 60_000, String(error.details.retryAfterMs))
    assert.match(error.message, /^Fetching https:\/\/example\.com is over the limit of the site example\.com: 1 request per 60 s \(limitPerDomain of the fetch row\), and the next one is free only after this call's deadline\. Retry in (59|60)(\.\d)? s\.$/)
    assert.ok(Date.now() - started < 5000, 'it did not wait for the deadline first')
  })

  it('holds `concurrency` slots: a call waits for a release, and one still waiting at its deadline gets WEB_RATE_LIMITED', async () => {
    const state = memoryState()
    const rule = { concurrency: 1 }
    const release = await state.acquire(limit(rule), call(5000), [])
    let second = false
    const waiting = state.acquire(limit(rule), call(5000), []).then((next) => ((second = true), next))
    await new Promise((resolve) => setTimeout(resolve, 30))
    assert.equal(second, false, 'the slot is taken')
    await release()
    await (await waiting)()
    assert.equal(second, true)
    const held = await state.acquire(limit(rule), call(5000), [])
    const error = await state.acquire(limit(rule), call(50), []).then(() => undefined, (error) => error)
    assert.equal(error?.code, 'WEB_RATE_LIMITED')
    assert.match(error.message, /1 call to it at once \(limitPerDomain of the fetch row\) were all still running at this call's deadline/)
    await held()
  })

  it('a limit of 0 is none, and other buckets count apart', async () => {
    const state = memoryState()
    for (let request = 0; request < 50; request++) await state.acquire(limit({ requests: 0, concurrency: 0 }), call(10), [])
    await state.acquire(limit({ requests: 1, intervalSeconds: 60 }), call(10), [])
    await state.acquire({ ...limit({ requests: 1, intervalSeconds: 60 }), bucket: 'fetch:example.org' }, call(10), [])
  })
})

describe('shared state: a store that does not answer', () => {
  it('runs the call without the cache and counts limits in this process, says so in the notes, and skips the store until stateRetryMs has passed', async () => {
    const memory = new MemoryStateStore(1024 * 1024)
    const silent = silentStore('redis')
    let now = Date.now()
    const state = new SharedState({ selected: () => silent, memory, timeoutMs: 30, retryAfterFailureMs: 1000, now: () => now })
    const notes: string[] = []
    assert.equal(await state.read('k', notes), undefined)
    assert.equal(notes.length, 1)
    assert.match(notes[0]!, /^The state store "redis" \(nowhere\) is not answering \(no answer within 30 ms; since \d{4}-\d\d-\d\dT[\d:.]+Z\): this call ran without the shared cache\.$/)
    await state.write(['k'], 'v', 1000, notes)
    assert.match(notes[1]!, /what this call fetched was not stored in the shared cache/)
    assert.equal(silent.asked, 1, 'skipped after failing')
    // Limits go on in this process, and say so.
    await state.acquire(limit({ requests: 1, intervalSeconds: 60 }), call(1000), notes)
    assert.match(notes[2]!, /the limit of the site example\.com was counted in this process only\.$/)
    await assert.rejects(state.acquire(limit({ requests: 1, intervalSeconds: 60 }), call(1000), []), (error: unknown) => WebError.is(error) && error.code === 'WEB_RATE_LIMITED')
    assert.equal(state.status().failing?.reason, 'no answer within 30 ms')
    now += 1000
    await state.read('k', [])
    assert.equal(silent.asked, 2, 'asked again after stateRetryMs')
  })
})

function countingProvider(id: string): SearchProvider & { calls: string[] } {
  const calls: string[] = []
  return {
    id,
    calls,
    available: () => true,
    search: async (request, call) => {
      calls.push(request.query)
      // What a provider built on the kit does: log the request, then tell the call where the log holds it.
      if (call.session) {
        const data = { providerId: id, body: { q: request.query } }
        const event = await call.session.append(`test/${id}-request`, data, { visibility: 'log' })
        call.onRequestLogged?.({ session: call.session.id, seq: event.seq, type: event.type, sha256: createHash('sha256').update(JSON.stringify(data)).digest('hex') })
      }
      return { providerId: id, query: request.query, queries: [request.query], sources: [{ url: `https://example.com/${encodeURIComponent(request.query)}` }], filters: [], usage: { searchRequests: 1 }, warnings: [] }
    },
  }
}

/** A session that keeps its events in memory: the contract's SessionHandle, for the seam's own tests (the host's is tested in dsh-harness). */
function memorySession(id: string): SessionHandle & { events: SessionEvent[] } {
  const events: SessionEvent[] = []
  return {
    id,
    dir: '/nonexistent',
    events,
    append: async (type, data, options) => {
      const event: SessionEvent = { seq: events.length + 1, time: new Date().toISOString(), type, visibility: options?.visibility ?? 'log', data }
      events.push(event)
      return event
    },
    read: async () => [...events],
  }
}

async function webContext(config: Partial<web.Config>) {
  const ctx = new Context()
  ctx.plugin(web, { searchProvider: 'alpha', fetchProvider: 'http', ...config })
  await ctx.start()
  await ctx.lifecycle.flush()
  return ctx
}

describe('the in-process store: records', () => {
  it('keeps records with no expiry, past the cache\'s bound, and replaces one only when it holds the expected value', async () => {
    const memory = new MemoryStateStore(0)
    assert.equal(await memory.replaceRecord('tokens', 'a', undefined, 'one'), true)
    assert.equal(await memory.replaceRecord('tokens', 'a', undefined, 'two'), false, 'no longer absent')
    assert.equal(await memory.replaceRecord('tokens', 'a', 'stale', 'two'), false, 'not the expected value')
    assert.equal(await memory.replaceRecord('tokens', 'a', 'one', 'two'), true)
    await memory.write(['cache-key'], 'x'.repeat(100), 60_000)
    assert.deepEqual(await memory.readRecords('tokens'), { a: 'two' }, 'a cache of 0 bytes keeps no page, and every record')
    assert.deepEqual(await memory.readRecords('other'), {})
  })
})

describe('ctx.web.search: the cache and the limits at dispatch', () => {
  it('asks the provider for every search by default: no cache stands between a call and its provider', async () => {
    const ctx = await webContext({})
    assert.equal(ctx.web.config.searchCacheTtlMs, 0)
    const provider = countingProvider('alpha')
    ctx.web.registerSearchProvider(provider)
    const first = await ctx.web.search({ query: 'q' }, call())
    const again = await ctx.web.search({ query: 'q' }, call())
    assert.deepEqual(provider.calls, ['q', 'q'])
    assert.equal(first.fromCache, undefined)
    assert.equal(again.fromCache, undefined)
    assert.deepEqual(again.usage, { searchRequests: 1 })
  })

  it('with searchCacheTtlMs on, a hit says so (when, which provider, the logged requests behind it) and the calling session records the original request', async () => {
    const ctx = await webContext({ searchCacheTtlMs: 60_000 })
    const provider = countingProvider('alpha')
    ctx.web.registerSearchProvider(provider)
    const initiating = memorySession('s-one')
    const first = await ctx.web.search({ query: 'q' }, { ...call(), session: initiating, callId: 'c1' })
    assert.equal(first.fromCache, undefined)
    assert.deepEqual(first.usage, { searchRequests: 1 })
    const [logged] = initiating.events
    assert.equal(logged.type, 'test/alpha-request')

    const later = memorySession('s-two')
    const again = await ctx.web.search({ query: 'q' }, { ...call(), session: later, callId: 'c2' })
    assert.deepEqual(provider.calls, ['q'], 'answered from the cache')
    assert.equal(again.usage, undefined, 'nothing was spent on it')
    assert.deepEqual(again.sources, first.sources)
    const sha256 = createHash('sha256').update(JSON.stringify(logged.data)).digest('hex')
    assert.deepEqual(again.fromCache?.requests, [{ session: 's-one', seq: logged.seq, type: 'test/alpha-request', sha256 }])
    assert.equal(again.fromCache?.providerId, 'alpha')
    assert.match(again.fromCache!.searchedAt, /^\d{4}-\d\d-\d\dT/)
    assert.deepEqual(again.warnings, [`From the search cache (searchCacheTtlMs of the web row): alpha answered this search at ${again.fromCache!.searchedAt}; no request was made for this call.`])
    assert.deepEqual(later.events.map((event) => [event.type, event.visibility, event.data]), [
      [web.SEARCH_CACHE_HIT_EVENT, 'log', { providerId: 'alpha', query: 'q', searchedAt: again.fromCache!.searchedAt, requests: again.fromCache!.requests, callId: 'c2' }],
    ])

    await ctx.web.search({ query: 'q', allowedDomains: ['example.com'] }, call())
    assert.deepEqual(provider.calls, ['q', 'q'], 'a filter makes another search')
    await ctx.web.search({ query: 'q', recency: 'week' }, call())
    assert.deepEqual(provider.calls, ['q', 'q', 'q'], 'so does a recency filter')
    await ctx.web.search({ query: 'q', recency: 'week' }, call())
    assert.deepEqual(provider.calls, ['q', 'q', 'q'], 'and the same recency is a hit')
  })

  it('passes searchLimits of the provider before asking it: over the limit past the deadline is WEB_RATE_LIMITED naming the setting', async () => {
    const ctx = await webContext({ searchLimits: { alpha: { requests: 1, intervalSeconds: 60, concurrency: 0 } } })
    const provider = countingProvider('alpha')
    ctx.web.registerSearchProvider(provider)
    await ctx.web.search({ query: 'one' }, call(5000))
    const error = await ctx.web.search({ query: 'two' }, call(5000)).then(() => undefined, (error) => error)
    assert.equal(error?.code, 'WEB_RATE_LIMITED')
    assert.match(error.message, /^The search "two" is over the limit of the search provider alpha: 1 request per 60 s \(searchLimits\.alpha in the web row\)/)
    assert.deepEqual(provider.calls, ['one'])
  })

  it('uses ctx.stateStore for as long as a row provides it, looked up at every call, and this process\'s store before and after', async () => {
    const ctx = await webContext({ searchCacheTtlMs: 60_000 })
    const provider = countingProvider('alpha')
    ctx.web.registerSearchProvider(provider)
    assert.deepEqual(ctx.web.state.status(), { storeId: 'memory', shared: false, location: 'this process' })
    const silent = silentStore('silent')
    const fork = ctx.plugin({ name: 'silent-state-row', apply: (row: Context) => void row.set('stateStore', silent) })
    await ctx.lifecycle.flush()
    assert.deepEqual(ctx.web.state.status(), { storeId: 'silent', shared: true, location: 'nowhere' })
    const result = await ctx.web.search({ query: 'q' }, call())
    assert.equal(result.sources.length, 1)
    assert.ok(silent.asked > 0, 'the call asked the row\'s store')
    assert.match(result.warnings.join('\n'), /The state store "silent" \(nowhere\) is not answering \(no answer within \d+ ms; since .+\): this call ran without the shared cache\./)
    fork.dispose()
    assert.deepEqual(ctx.web.state.status(), { storeId: 'memory', shared: false, location: 'this process' })
  })
})
