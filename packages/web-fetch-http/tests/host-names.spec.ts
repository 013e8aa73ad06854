// One canonical host name per hop (dsh-host's canonicalHost), on both
// routes: local names in every spelling are refused before any lookup with
// the same code and message, direct or through a proxy; names a proxy reads
// otherwise (empty labels, repeated trailing dots) are refused as malformed
// before anything is looked up or sent; and what is sent (Host, the CONNECT
// authority) is the canonical name that was vetted. The proxies are a real
// tinyproxy and a real Squid, which reads `localhost..` as `localhost`.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, fakeLookup, refusal, signal, startServer } from './helpers.js'
import { type Squid, type Tinyproxy, squidMissing, startSquid, startTinyproxy, tinyproxyMissing } from '../../../tests/support/tinyproxy.js'

/** Local names as a model could write them: trailing dot, case, and forms the URL parser folds (full-width letters, escapes, the ideographic full stop). */
const LOCAL_SPELLINGS: [written: string, canonical: string][] = [
  ['localhost.', 'localhost'],
  ['LOCALHOST', 'localhost'],
  ['LocalHost.', 'localhost'],
  ['ｌｏｃａｌｈｏｓｔ', 'localhost'],
  ['local%68ost', 'localhost'],
  ['localhost\u3002', 'localhost'],
  ['App.LocalHost.', 'app.localhost'],
  ['printer.local.', 'printer.local'],
  ['METADATA.google.internal.', 'metadata.google.internal'],
  ['Intranet.', 'intranet'],
]

/** Hosts the URL parser keeps but a proxy or resolver may read as another name. */
const MALFORMED = ['localhost..', 'localhost...', '.localhost', 'a..localhost', 'localhost.%2e', "local'host.example", 'local$host.example']

describe('one canonical host name on both routes', () => {
  let target: TestServer
  let proxy: Tinyproxy | undefined
  before(async () => {
    target = await startServer((request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(`host ${request.headers.host}`))
    if (!tinyproxyMissing) proxy = await startTinyproxy()
  })
  after(async () => {
    await Promise.all([target?.close(), proxy?.stop()])
  })

  /** Direct, or through tinyproxy; every lookup answers loopback, and is recorded. */
  function fetchers() {
    const direct = fakeLookup(Object.fromEntries(LOCAL_SPELLINGS.map(([, name]) => [name, ['127.0.0.1']])))
    const proxied = fakeLookup({})
    return {
      direct: { lookup: direct, fetcher: createHttpFetcher({ lookup: direct, env: {} }) },
      proxied: proxy ? { lookup: proxied, fetcher: createHttpFetcher({ lookup: proxied, env: { HTTP_PROXY: proxy.origin, HTTPS_PROXY: proxy.origin } }) } : undefined,
    }
  }

  it('refuses a local name in every spelling before any lookup, with the same code and message on the direct and the proxy route', async () => {
    const { direct, proxied } = fetchers()
    try {
      const seen = proxy?.requests().length ?? 0
      for (const [written, canonical] of LOCAL_SPELLINGS) {
        const url = `http://${written}:${target.port}/page`
        const onDirect = await refusal(direct.fetcher.fetch({ url }, { signal: signal() }))
        assert.equal(onDirect.code, 'WEB_BLOCKED_ADDRESS', written)
        assert.equal(onDirect.details.localName, true, written)
        assert.equal(onDirect.details.host, canonical, written)
        assert.match(onDirect.message, new RegExp(`^The host ${canonical.replace(/\./g, '\\.')} is .*privateHosts on the fetch row \\(dsh: --private-host ${canonical.replace(/\./g, '\\.')}\\).*\\.$`), written)
        if (proxied) {
          const onProxy = await refusal(proxied.fetcher.fetch({ url }, { signal: signal() }))
          assert.equal(onProxy.code, onDirect.code, written)
          assert.equal(onProxy.message, onDirect.message, written)
        }
      }
      assert.deepEqual(direct.lookup.calls, [], 'no local name was looked up on the direct route')
      assert.deepEqual(proxied?.lookup.calls ?? [], [], 'nor on the proxy route')
      assert.deepEqual(proxy?.requests().slice(seen) ?? [], [], 'nothing reached the proxy')
      assert.deepEqual(target.hits, [], 'nothing reached the target')
    } finally {
      await Promise.all([direct.fetcher.close(), proxied?.fetcher.close()])
    }
  })

  it('refuses names a proxy reads otherwise as malformed, on both routes, before any lookup', async () => {
    const { direct, proxied } = fetchers()
    try {
      for (const host of MALFORMED) {
        const url = `http://${host}:${target.port}/page`
        for (const fetcher of [direct.fetcher, proxied?.fetcher]) {
          if (!fetcher) continue
          const refused = await refusal(fetcher.fetch({ url }, { signal: signal() }))
          assert.equal(refused.code, 'WEB_INVALID_URL', host)
          assert.match(refused.message, /is not a host name every resolver and proxy reads the same way: .*plain form/, host)
        }
      }
      assert.deepEqual([...direct.lookup.calls, ...(proxied?.lookup.calls ?? [])], [])
      assert.deepEqual(target.hits, [])
    } finally {
      await Promise.all([direct.fetcher.close(), proxied?.fetcher.close()])
    }
  })

  it('refuses a redirect to a local name in another spelling on the direct route without looking it up', async () => {
    const redirecting = await startServer((_request, response) => response.writeHead(302, { location: `http://LocalHost.:${target.port}/` }).end())
    const lookup = fakeLookup({ 'start.test': ['127.0.0.1'], localhost: ['127.0.0.1'] })
    const fetcher = createHttpFetcher({ lookup, env: {}, privateHosts: ['start.test'] })
    try {
      const refused = await refusal(fetcher.fetch({ url: `http://start.test:${redirecting.port}/` }, { signal: signal() }))
      assert.equal(refused.code, 'WEB_BLOCKED_ADDRESS')
      assert.equal(refused.details.localName, true)
      assert.deepEqual(lookup.calls, ['start.test'])
    } finally {
      await Promise.all([fetcher.close(), redirecting.close()])
    }
  })

  it('sends the canonical name it vetted: the Host header direct, the CONNECT authority through the proxy', async () => {
    const direct = createHttpFetcher({ env: {}, privateHosts: ['localhost'] })
    const proxied = proxy ? createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, privateHosts: ['localhost'] }) : undefined
    try {
      const document = await direct.fetch({ url: `http://LocalHost.:${target.port}/page`, format: 'text' }, { signal: signal() })
      assert.equal(document.text, `host localhost:${target.port}`)
      assert.equal(document.provenance.requestedUrl, `http://localhost:${target.port}/page`)
      if (proxied && proxy) {
        const seen = proxy.requests().length
        const through = await proxied.fetch({ url: `http://LOCALHOST.:${target.port}/other`, format: 'text' }, { signal: signal() })
        assert.equal(through.text, `host localhost:${target.port}`)
        assert.deepEqual(proxy.requests().slice(seen), [`CONNECT localhost:${target.port} HTTP/1.1`])
      }
    } finally {
      await Promise.all([direct.close(), proxied?.close()])
    }
  })

  it('reads every list in the canonical form: privateHosts, resolve, blocked and allowed lists, NO_PROXY, whatever the spelling', async () => {
    // Unicode and punycode, case and a trailing dot, on both sides of each comparison.
    const fetcher = createHttpFetcher({
      env: { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: 'BÜCHER.test.,Blocked.Test.' },
      privateHosts: ['Bücher.TEST.', 'blocked.test'],
      resolve: { 'XN--BCHER-KVA.test.': '127.0.0.1', 'blocked.test': '127.0.0.1' },
      blockedDomains: ['BLOCKED.test.'],
    })
    try {
      const document = await fetcher.fetch({ url: `http://bücher.test.:${target.port}/`, format: 'text', allowedDomains: ['XN--bcher-kva.TEST.'] }, { signal: signal() })
      assert.equal(document.text, `host xn--bcher-kva.test:${target.port}`)
      assert.equal(document.provenance.route, 'direct', 'NO_PROXY matched the Unicode entry')
      const blocked = await refusal(fetcher.fetch({ url: `http://blocked.TEST.:${target.port}/` }, { signal: signal() }))
      assert.equal(blocked.code, 'WEB_BLOCKED_URL')
      const outside = await refusal(fetcher.fetch({ url: `http://bücher.test:${target.port}/`, allowedDomains: ['other.test.'] }, { signal: signal() }))
      assert.equal(outside.code, 'WEB_BLOCKED_URL')
    } finally {
      await fetcher.close()
    }
  })

  it('refuses a privateHosts or resolve entry without a canonical form, naming the setting', async () => {
    for (const options of [{ privateHosts: ['a..b'] }, { resolve: { 'localhost..': '127.0.0.1' } }]) {
      assert.throws(() => createHttpFetcher({ env: {}, ...options }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'INVALID_ARGUMENT')
        assert.match(error.message, /^(privateHosts|resolve): The host .* empty label/)
        return true
      })
    }
  })
})

describe('a real Squid never reaches loopback through a name it reads otherwise', { skip: squidMissing }, () => {
  let target: TestServer
  let squid: Squid
  before(async () => {
    target = await startServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('loopback service'))
    squid = await startSquid()
  })
  after(async () => {
    await Promise.all([target?.close(), squid?.stop()])
  })

  it('refuses localhost.. and its kin before anything is sent (Squid would connect them to 127.0.0.1)', async () => {
    // A name that does not resolve here still goes to the proxy (resolveLocally's rule), so only the name's own form can stop it.
    const lookup = fakeLookup({})
    const fetcher = createHttpFetcher({ lookup, env: { HTTP_PROXY: squid.origin } })
    try {
      for (const host of ['localhost..', 'localhost...', 'localhost.%2e', 'localhost.', 'LOCALHOST']) {
        const refused = await refusal(fetcher.fetch({ url: `http://${host}:${target.port}/` }, { signal: signal() }))
        assert.ok(refused.code === 'WEB_INVALID_URL' || (refused.code === 'WEB_BLOCKED_ADDRESS' && refused.details.localName === true), `${host}: ${refused.code} ${refused.message}`)
      }
      assert.deepEqual(lookup.calls, [])
      assert.deepEqual(target.hits, [], 'the loopback service saw no request')
      assert.deepEqual(squid.requests(), [], 'nothing reached Squid')
    } finally {
      await fetcher.close()
    }
  })

  it('still fetches a trusted name through Squid, sending the canonical name', async () => {
    const fetcher = createHttpFetcher({ env: { HTTP_PROXY: squid.origin }, privateHosts: ['localhost'] })
    try {
      const document = await fetcher.fetch({ url: `http://LocalHost.:${target.port}/page`, format: 'text' }, { signal: signal() })
      assert.equal(document.text, 'loopback service')
      assert.equal(document.provenance.route, 'proxy')
    } finally {
      await fetcher.close()
    }
  })
})
