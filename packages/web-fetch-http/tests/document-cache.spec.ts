// The shared document cache key is the whole defence of a cache hit (only
// the requested URL is checked again): two fetchers on one shared store, or
// two calls under different allowlists, must each refuse what their own
// settings refuse, never be served what another fetched. Each case here
// fails when its part is left out of the key (the call's allowlist, the
// fetcher's trust, its route).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MemoryStateStore, SharedState } from 'dsh-web'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, refusal, signal, startServer } from './helpers.js'
import { type Tinyproxy, freePort, startTinyproxy, tinyproxyMissing } from '../../../tests/support/tinyproxy.js'

/** One in-memory store shared by every fetcher given it, as a Redis store is shared by processes. */
function sharedStore(): () => SharedState {
  const store = new MemoryStateStore(10 * 1024 * 1024)
  const state = new SharedState({ selected: () => store, memory: store, timeoutMs: 1000, retryAfterFailureMs: 1000 })
  return () => state
}

describe('the document cache key on one shared store', () => {
  let site: TestServer
  before(async () => {
    site = await startServer((request, response) => {
      if (request.url === '/start') response.writeHead(302, { location: `http://b.test:${site.port}/page` }).end()
      else response.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${request.url}`)
    })
  })
  after(() => site?.close())

  it('a call under a narrower allowlist is refused the redirect hop it forbids, though a wider call cached the page', async () => {
    const fetcher = createHttpFetcher({ env: {}, resolve: { 'a.test': '127.0.0.1', 'b.test': '127.0.0.1' }, privateHosts: ['a.test', 'b.test'] })
    try {
      const url = `http://a.test:${site.port}/start`
      const wide = await fetcher.fetch({ url, format: 'text', allowedDomains: ['a.test', 'b.test'] }, { signal: signal() })
      assert.equal(wide.text, 'page /page')
      const narrow = await refusal(fetcher.fetch({ url, format: 'text', allowedDomains: ['a.test'] }, { signal: signal() }))
      assert.equal(narrow.code, 'WEB_BLOCKED_URL')
      assert.match(narrow.message, /A redirect from .* b\.test matches no entry of this request's allowed domain list \(a\.test\)/)
      // The same allowlist again is a hit: the key holds the list, not the call.
      const again = await fetcher.fetch({ url, format: 'text', allowedDomains: ['a.test', 'b.test'] }, { signal: signal() })
      assert.equal(again.provenance.cacheHit, true)
    } finally {
      await fetcher.close()
    }
  })

  it('a fetcher that trusts nothing is refused 127.0.0.1, though a fetcher trusting it cached the page on the same store', async () => {
    const state = sharedStore()
    const trusting = createHttpFetcher({ env: {}, state, privateHosts: ['127.0.0.1'] })
    const plain = createHttpFetcher({ env: {}, state })
    try {
      const url = `http://127.0.0.1:${site.port}/secret`
      const read = await trusting.fetch({ url, format: 'text' }, { signal: signal() })
      assert.equal(read.text, 'page /secret')
      assert.equal((await trusting.fetch({ url, format: 'text' }, { signal: signal() })).provenance.cacheHit, true, 'the store does share')
      const refused = await refusal(plain.fetch({ url, format: 'text' }, { signal: signal() }))
      assert.equal(refused.code, 'WEB_BLOCKED_ADDRESS')
      assert.equal(site.hits.filter((path) => path === '/secret').length, 1)
    } finally {
      await Promise.all([trusting.close(), plain.close()])
    }
  })
})

describe('the document cache key holds the route', { skip: tinyproxyMissing }, () => {
  let site: TestServer
  let proxy: Tinyproxy
  before(async () => {
    site = await startServer((request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${request.url}`))
    proxy = await startTinyproxy()
  })
  after(async () => {
    await Promise.all([site?.close(), proxy?.stop()])
  })

  it('a process whose proxy is down, or that goes direct, is never served what its proxied peer fetched', async () => {
    const state = sharedStore()
    const downPort = await freePort()
    const proxied = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, state, privateHosts: ['localhost'] })
    const downProxy = createHttpFetcher({ env: { HTTP_PROXY: `http://127.0.0.1:${downPort}` }, state, privateHosts: ['localhost'] })
    const direct = createHttpFetcher({ env: {}, state, privateHosts: ['localhost'] })
    try {
      const url = `http://localhost:${site.port}/through`
      const read = await proxied.fetch({ url, format: 'text' }, { signal: signal() })
      assert.equal(read.provenance.route, 'proxy')
      assert.equal((await proxied.fetch({ url, format: 'text' }, { signal: signal() })).provenance.cacheHit, true, 'the store does share')
      const down = await refusal(downProxy.fetch({ url, format: 'text' }, { signal: signal() }))
      assert.equal(down.code, 'WEB_PROXY_FAILED')
      const own = await direct.fetch({ url, format: 'text' }, { signal: signal() })
      assert.equal(own.provenance.cacheHit, false)
      assert.equal(own.provenance.route, 'direct')
    } finally {
      await Promise.all([proxied.close(), downProxy.close(), direct.close()])
    }
  })
})
