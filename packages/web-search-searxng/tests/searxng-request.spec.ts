import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createSearxngSearch } from '../src/searxng-search.js'
import { searxngQuery, searxngSearchEndpoint } from '../src/to-searxng-request.js'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { basicAuth, call, FIXTURES, providerFor, queryPairs, rejection, settingsFor, TEST_KEY } from './helpers.js'

describe('searxng: the request as received', () => {
  const server = useFixtureServer(FIXTURES)

  it('GET {base}/search with the exact query string, Accept JSON, HTTP Basic from the credential, no body', async () => {
    server.reply('searxng-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: 'rust async runtime' }, call())
    assert.equal(server.requests.length, 1)
    const [received] = server.requests
    assert.equal(received!.method, 'GET')
    assert.equal(received!.path, '/searxng/search?q=rust+async+runtime&format=json&pageno=1')
    assert.equal(received!.headers.accept, 'application/json')
    assert.equal(received!.headers['user-agent'], 'dsh-web-search-searxng')
    assert.equal(received!.headers.authorization, basicAuth(TEST_KEY))
    assert.equal(received!.headers['content-type'], undefined)
    assert.equal(received!.body, '')
    await provider.close()
  })

  it('no credential configured: no Authorization header, and no credential is looked up', async () => {
    server.reply('searxng-multi-result')
    let lookups = 0
    const { provider } = providerFor(server, { authEnv: undefined }, {
      resolveCredential: async () => {
        lookups++
        return { value: 'must-not-be-used', source: 'store' }
      },
    })
    const result = await provider.search({ query: 'rust async runtime' }, call())
    assert.equal(result.sources.length, 4)
    assert.equal(lookups, 0)
    const headers = server.requests[0]!.headers
    assert.equal(headers.authorization, undefined)
    assert.deepEqual(Object.keys(headers).sort(), ['accept', 'connection', 'host', 'user-agent'])
    await provider.close()
  })

  it("the row's language, safesearch, timeRange, categories and engines, in this order, exactly", async () => {
    server.reply('searxng-multi-result')
    const { provider } = providerFor(server, {
      language: 'de-CH',
      safesearch: 2,
      timeRange: 'week',
      categories: ['general', ' news ', 'general', ''],
      engines: ['duckduckgo', 'wikipedia'],
    })
    await provider.search({ query: 'Zürich öffnungszeiten' }, call())
    assert.equal(
      server.requests[0]!.path,
      '/searxng/search?q=Z%C3%BCrich+%C3%B6ffnungszeiten&format=json&pageno=1&language=de-CH&safesearch=2&time_range=week&categories=general%2Cnews&engines=duckduckgo%2Cwikipedia',
    )
    assert.deepEqual(queryPairs(server.requests[0]!.path).slice(0, 1), [['q', 'Zürich öffnungszeiten']])
    await provider.close()
  })

  for (const recency of ['day', 'week', 'month', 'year'] as const) {
    it(`recency ${recency} goes out as time_range=${recency} and is reported honoured`, async () => {
      server.reply('searxng-multi-result')
      const { provider } = providerFor(server)
      const result = await provider.search({ query: 'release notes', recency }, call())
      assert.equal(server.requests[0]!.path, `/searxng/search?q=release+notes&format=json&pageno=1&time_range=${recency}`)
      assert.deepEqual(result.filters, [
        { filter: 'recency', honoured: true, note: `sent to SearXNG as time_range=${recency}, with which it asks only the engines that support a time range` },
      ])
      await provider.close()
    })
  }

  it("recency replaces the row's timeRange for that search and says so; without recency the row's timeRange stands", async () => {
    server.reply('searxng-multi-result', 'searxng-multi-result')
    const { provider } = providerFor(server, { timeRange: 'year' })
    const result = await provider.search({ query: 'q', recency: 'day' }, call())
    assert.equal(server.requests[0]!.path, '/searxng/search?q=q&format=json&pageno=1&time_range=day')
    assert.deepEqual(result.filters, [
      {
        filter: 'recency',
        honoured: true,
        note: "sent to SearXNG as time_range=day, with which it asks only the engines that support a time range; it replaced the row's timeRange year for this search",
      },
    ])
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[1]!.path, '/searxng/search?q=q&format=json&pageno=1&time_range=year')
    await provider.close()
  })

  it('safesearch 0 is sent (it is a value, not an absence)', async () => {
    server.reply('searxng-multi-result')
    const { provider } = providerFor(server, { safesearch: 0 })
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/searxng/search?q=q&format=json&pageno=1&safesearch=0')
    await provider.close()
  })

  it('authScheme bearer and header send the credential as the scheme says, and only there', async () => {
    server.reply('searxng-multi-result', 'searxng-multi-result')
    const bearer = providerFor(server, { authScheme: 'bearer' }, { resolveCredential: async () => ({ value: 'tok-bearer-1234', source: 'store' }) })
    await bearer.provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer tok-bearer-1234')
    const header = providerFor(server, { authScheme: 'header', authHeader: 'X-Api-Key' }, { resolveCredential: async () => ({ value: 'tok-header-5678', source: 'store' }) })
    await header.provider.search({ query: 'q' }, call())
    assert.equal(server.requests[1]!.headers['x-api-key'], 'tok-header-5678')
    assert.equal(server.requests[1]!.headers.authorization, undefined)
    await bearer.provider.close()
    await header.provider.close()
  })

  it('basic with a value that is not user:password is refused before anything is sent, naming the credential, never the value', async () => {
    const { provider } = providerFor(server, {}, { resolveCredential: async () => ({ value: 'just-a-token-9999', source: 'store' }) })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    assert.equal(
      error.message,
      'SearXNG: DSH_TEST_SEARXNG_UNUSED from the credentials store is not of the form user:password that authScheme basic needs; nothing was sent.',
    )
    assert.ok(!JSON.stringify(error.toJSON()).includes('just-a-token-9999'))
    assert.equal(server.requests.length, 0)
    await provider.close()
  })

  it('authScheme header without authHeader: unavailable, saying which key to set; a search sends nothing', async () => {
    const { provider } = providerFor(server, { authScheme: 'header' })
    assert.equal(provider.available(), false)
    assert.equal(provider.unavailableReason?.(), 'authScheme header needs authHeader, the name of the header that carries the token')
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_UNAVAILABLE')
    assert.equal(server.requests.length, 0)
    await provider.close()
  })

  it('the endpoint: /search appended to the instance root, kept when already there; query and fragment dropped', async () => {
    assert.equal(searxngSearchEndpoint('https://search.example').href, 'https://search.example/search')
    assert.equal(searxngSearchEndpoint('https://search.example/').href, 'https://search.example/search')
    assert.equal(searxngSearchEndpoint('https://example.org/searxng/').href, 'https://example.org/searxng/search')
    assert.equal(searxngSearchEndpoint('https://example.org/searxng/search/').href, 'https://example.org/searxng/search')
    assert.equal(searxngSearchEndpoint('http://10.0.0.5:8888/?format=html#x').href, 'http://10.0.0.5:8888/search')
    assert.throws(() => searxngSearchEndpoint('ftp://search.example/'), /unsupported protocol/)
    server.reply('searxng-multi-result')
    const { provider } = providerFor(server, { baseURL: `${server.url}/searxng/search` })
    await provider.search({ query: 'q' }, call())
    assert.equal(new URL(server.requests[0]!.path, server.url).pathname, '/searxng/search')
    await provider.close()
  })

  it('reads SEARXNG_BASE_URL when the row sets no baseURL; with neither, it is unavailable and says so', async () => {
    server.reply('searxng-multi-result')
    const fromEnv = providerFor(server, { baseURL: undefined }, { env: { SEARXNG_BASE_URL: `${server.url}/from-env/` } })
    await fromEnv.provider.search({ query: 'q' }, call())
    assert.equal(new URL(server.requests[0]!.path, server.url).pathname, '/from-env/search')
    await fromEnv.provider.close()

    const none = providerFor(server, { baseURL: undefined }, { env: {} })
    assert.equal(none.provider.available(), false)
    assert.equal(none.provider.unavailableReason?.(), 'no base URL is configured; set baseURL in the row or the environment variable SEARXNG_BASE_URL')
    const error = await rejection(none.provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_UNAVAILABLE')
    assert.equal(error.message, 'The SearXNG search is not available: no base URL is configured; set baseURL in the row or the environment variable SEARXNG_BASE_URL.')
    assert.equal(server.requests.length, 1)
    await none.provider.close()
  })

  it('a baseURL carrying user:password is refused (the credential belongs in authEnv) and shown without it', () => {
    const provider = createSearxngSearch(
      { ...settingsFor({ url: 'http://127.0.0.1:9' } as never), baseURL: 'https://admin:hunter22@search.example/' },
      { resolveCredential: async () => ({ value: 'k:v', source: 'store' }), env: {} },
    )
    assert.equal(provider.available(), false)
    const reason = provider.unavailableReason?.() ?? ''
    assert.equal(
      reason,
      'baseURL "https://search.example/" cannot be used (it carries a user name or password; store them as a credential named by authEnv instead); set baseURL or SEARXNG_BASE_URL',
    )
    assert.ok(!reason.includes('hunter22'))
  })

  it('rejects an empty query before any request', async () => {
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: '  ' }, call()))
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.equal(server.requests.length, 0)
    await provider.close()
  })
})

describe('searxng: domain filters as site: terms, reported as they held for the returned sources', () => {
  const server = useFixtureServer(FIXTURES)

  it('allowed domains as site: terms joined by OR, blocked ones as -site: terms, both sent', async () => {
    assert.equal(searxngQuery('node lts', ['nodejs.org'], []), 'node lts site:nodejs.org')
    assert.equal(searxngQuery(' node lts ', ['https://nodejs.org/', 'endoflife.date'], ['pinterest.com']), 'node lts site:nodejs.org OR site:endoflife.date -site:pinterest.com')
    server.reply('searxng-domains-satisfied')
    const { provider } = providerFor(server)
    await provider.search({ query: 'node lts', allowedDomains: ['nodejs.org', ' endoflife.date ', 'nodejs.org'], blockedDomains: ['pinterest.com'] }, call())
    assert.equal(server.requests[0]!.path, '/searxng/search?q=node+lts+site%3Anodejs.org+OR+site%3Aendoflife.date+-site%3Apinterest.com&format=json&pageno=1')
    await provider.close()
  })

  it('regression: allowed_domains [nodejs.org] with a github.com source is NOT honoured, the note counts it, and no source is dropped', async () => {
    server.reply('searxng-domains')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', allowedDomains: ['nodejs.org'] }, call())
    assert.deepEqual(result.filters, [
      { filter: 'allowed_domains', honoured: false, note: 'sent to SearXNG as site: query terms, but 1 of 3 sources is outside the allowed domains (github.com)' },
    ])
    assert.deepEqual(result.sources.map((source) => source.url), [
      'https://nodejs.org/en/about/previous-releases',
      'https://Blog.NodeJS.org/release/v24.11.0',
      'https://github.com/nodejs/Release',
    ])
    await provider.close()
  })

  it('allowed_domains is honoured when every source is on the domains (subdomains included, case-insensitive)', async () => {
    server.reply('searxng-domains-satisfied')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', allowedDomains: ['NodeJS.org'] }, call())
    assert.deepEqual(result.filters, [{ filter: 'allowed_domains', honoured: true, note: 'sent to SearXNG as site: query terms; all 2 sources are on the allowed domains' }])
    await provider.close()
  })

  it('blocked_domains with a source on a blocked domain is NOT honoured, naming the host', async () => {
    server.reply('searxng-domains')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', blockedDomains: ['GitHub.com'] }, call())
    assert.equal(queryPairs(server.requests[0]!.path)[0]![1], 'node lts -site:github.com', 'the entry is sent as the domain matcher normalises it')
    assert.deepEqual(result.filters, [
      { filter: 'blocked_domains', honoured: false, note: 'sent to SearXNG as -site: query terms, but 1 of 3 sources is on the blocked domains (github.com)' },
    ])
    assert.equal(result.sources.length, 3)
    await provider.close()
  })

  it('user_location is not sent (SearXNG has no location parameter) and is reported NOT honoured', async () => {
    server.reply('searxng-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q', userLocation: { country: 'DE', city: 'Berlin' } }, call())
    assert.equal(server.requests[0]!.path, '/searxng/search?q=q&format=json&pageno=1')
    assert.deepEqual(result.filters, [
      {
        filter: 'user_location',
        honoured: false,
        note: 'not sent: SearXNG has no location parameter (its `language` selects a language, not a place; set `language` in the searxng row)',
      },
    ])
    await provider.close()
  })
})

describe('searxng: pages for maxResults', () => {
  const server = useFixtureServer(FIXTURES)
  const pagenos = () => server.requests.map((request) => new URL(request.path, server.url).searchParams.get('pageno'))

  it('maxResults 15: pages 1 and 2, duplicates across pages counted once, the first 15 listed with a warning saying so', async () => {
    server.reply('searxng-page-1', 'searxng-page-2')
    const { provider } = providerFor(server, { maxResults: 15, maxPages: 5 })
    const result = await provider.search({ query: 'paging test' }, call())
    assert.deepEqual(pagenos(), ['1', '2'])
    assert.equal(server.requests[1]!.path, '/searxng/search?q=paging+test&format=json&pageno=2')
    assert.equal(result.sources.length, 15)
    assert.deepEqual(result.sources.slice(9, 12).map((source) => source.url), ['https://page1.example/r10', 'https://page2.example/r1', 'https://page2.example/r2'])
    assert.equal(new Set(result.sources.map((source) => source.url)).size, 15)
    assert.deepEqual(result.warnings, ['SearXNG returned 18 results; the first 15 are listed (maxResults of the searxng row).'])
    assert.deepEqual(result.usage, { searchRequests: 2 })
    await provider.close()
  })

  it('maxResults 10 and a full first page: one request, no warning', async () => {
    server.reply('searxng-page-1')
    const { provider } = providerFor(server, { maxResults: 10, maxPages: 5 })
    const result = await provider.search({ query: 'paging test' }, call())
    assert.deepEqual(pagenos(), ['1'])
    assert.equal(result.sources.length, 10)
    assert.deepEqual(result.warnings, [])
    await provider.close()
  })

  it('stops at the first page that adds nothing (an empty page), before maxPages', async () => {
    server.reply('searxng-page-1', 'searxng-page-2', 'searxng-page-empty')
    const { provider } = providerFor(server, { maxResults: 50, maxPages: 5 })
    const result = await provider.search({ query: 'paging test' }, call())
    assert.deepEqual(pagenos(), ['1', '2', '3'])
    assert.equal(result.sources.length, 18)
    assert.deepEqual(result.warnings, [])
    await provider.close()
  })

  it('stops at maxPages even when maxResults is not reached', async () => {
    server.reply('searxng-page-1', 'searxng-page-2')
    const { provider } = providerFor(server, { maxResults: 100, maxPages: 2 })
    const result = await provider.search({ query: 'paging test' }, call())
    assert.deepEqual(pagenos(), ['1', '2'])
    assert.equal(result.sources.length, 18)
    await provider.close()
  })

  it("a later page's failure keeps the earlier results, with a warning naming the failure", async () => {
    server.reply('searxng-page-1', 'searxng-429-limiter')
    const { provider } = providerFor(server, { maxResults: 15, maxPages: 3 })
    const result = await provider.search({ query: 'paging test' }, call())
    assert.deepEqual(pagenos(), ['1', '2'])
    assert.equal(result.sources.length, 10)
    assert.equal(result.warnings.length, 1)
    assert.match(result.warnings[0]!, /^Page 2 of the results failed \(\[WEB_PROVIDER_RATE_LIMITED\] SearXNG: the instance's limiter refused the request .*; the results are those of the earlier pages\.$/)
    await provider.close()
  })

  it('a cancel while a later page is read ends the search with WEB_ABORTED (no partial result)', async () => {
    const controller = new AbortController()
    server.reply('searxng-page-1')
    server.replyWith(() => controller.abort())
    const { provider } = providerFor(server, { maxResults: 15, maxPages: 3 })
    const error = await rejection(provider.search({ query: 'paging test' }, { signal: controller.signal }))
    assert.equal(error.code, 'WEB_ABORTED')
    assert.deepEqual(pagenos(), ['1', '2'])
    await provider.close()
  })
})
