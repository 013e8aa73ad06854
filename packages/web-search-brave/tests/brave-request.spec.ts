import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createBraveSearch, DEFAULT_BRAVE_BASE_URL } from '../src/brave-search.js'
import { braveWebSearchEndpoint } from '../src/to-brave-request.js'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXED_PARAMS, FIXTURES, providerFor, TEST_KEY } from './helpers.js'

describe('brave: the request as sent', () => {
  const server = useFixtureServer(FIXTURES)

  it('GETs /res/v1/web/search with X-Subscription-Token and the exact query string, no body', async () => {
    server.reply('brave-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: 'rust async runtime' }, call())
    assert.equal(server.requests.length, 1)
    const [received] = server.requests
    assert.equal(received!.method, 'GET')
    assert.equal(received!.path, `/res/v1/web/search?q=rust+async+runtime&count=20&offset=0&${FIXED_PARAMS}`)
    assert.equal(received!.headers['x-subscription-token'], TEST_KEY)
    assert.equal(received!.headers.accept, 'application/json')
    assert.equal(received!.headers.authorization, undefined, 'the key travels once, in X-Subscription-Token')
    assert.equal(received!.headers['content-type'], undefined)
    assert.equal(received!.body, '')
    await provider.close()
  })

  it('sends the row settings (search_lang, ui_lang, safesearch, freshness, extra_snippets) and the country, in a fixed order', async () => {
    server.reply('brave-multi-result')
    const { provider } = providerFor(server, { searchLang: 'de', uiLang: 'de-DE', safesearch: 'strict', freshness: '2025-01-01to2025-03-31', extraSnippets: true, maxResults: 7 })
    await provider.search({ query: 'Straßenbahn Fahrplan & Preise', userLocation: { country: 'de' } }, call())
    assert.equal(
      server.requests[0]!.path,
      '/res/v1/web/search?q=Stra%C3%9Fenbahn+Fahrplan+%26+Preise&country=DE&search_lang=de&ui_lang=de-DE&count=7&offset=0' +
        `&safesearch=strict&freshness=2025-01-01to2025-03-31&${FIXED_PARAMS}&extra_snippets=true`,
    )
    await provider.close()
  })

  for (const [recency, freshness] of [['day', 'pd'], ['week', 'pw'], ['month', 'pm'], ['year', 'py']] as const) {
    it(`recency ${recency} goes out as freshness=${freshness} on every page and is reported honoured`, async () => {
      server.reply('brave-page-1', 'brave-page-2')
      const { provider } = providerFor(server, { maxResults: 40 })
      const result = await provider.search({ query: 'release notes', recency }, call())
      assert.equal(server.requests.length, 2)
      for (const [offset, received] of server.requests.entries()) {
        assert.equal(received.path, `/res/v1/web/search?q=release+notes&count=20&offset=${offset}&freshness=${freshness}&${FIXED_PARAMS}`)
      }
      assert.deepEqual(result.filters, [
        { filter: 'recency', honoured: true, note: `sent to Brave Search as freshness=${freshness}, which it documents as a filter on when the page was discovered` },
      ])
      await provider.close()
    })
  }

  it("recency replaces the row's freshness for that search and says so; without recency the row's freshness stands", async () => {
    server.reply('brave-multi-result', 'brave-multi-result')
    const { provider } = providerFor(server, { freshness: 'py' })
    const result = await provider.search({ query: 'q', recency: 'day' }, call())
    assert.match(server.requests[0]!.path, /&freshness=pd&/)
    assert.deepEqual(result.filters, [
      { filter: 'recency', honoured: true, note: "sent to Brave Search as freshness=pd, which it documents as a filter on when the page was discovered; it replaced the row's freshness=py for this search" },
    ])
    const plain = await provider.search({ query: 'q' }, call())
    assert.match(server.requests[1]!.path, /&freshness=py&/)
    assert.deepEqual(plain.filters, [])
    await provider.close()
  })

  it('user_location: a two-letter country is sent and honoured; city, region and timezone are not sent and say so', async () => {
    server.reply('brave-multi-result', 'brave-multi-result', 'brave-multi-result')
    const { provider } = providerFor(server)
    const country = await provider.search({ query: 'q', userLocation: { type: 'approximate', country: 'GB' } }, call())
    assert.match(server.requests[0]!.path, /&country=GB&/)
    assert.deepEqual(country.filters, [
      { filter: 'user_location', honoured: true, note: 'country GB sent to Brave Search as `country`, which it documents as where the results come from' },
    ])

    const full = await provider.search({ query: 'q', userLocation: { city: 'Berlin', region: 'Berlin', country: 'DE', timezone: 'Europe/Berlin' } }, call())
    assert.match(server.requests[1]!.path, /&country=DE&/)
    assert.ok(!server.requests[1]!.path.includes('Berlin'), 'the city goes nowhere')
    assert.deepEqual(full.filters, [
      {
        filter: 'user_location',
        honoured: false,
        note: "country DE sent to Brave Search as `country`, which it documents as where the results come from; city, region, timezone not sent: Brave's web search takes no such parameter",
      },
    ])

    const named = await provider.search({ query: 'q', userLocation: { country: 'Germany' } }, call())
    assert.ok(!server.requests[2]!.path.includes('country='))
    assert.deepEqual(named.filters, [{ filter: 'user_location', honoured: false, note: 'country "Germany" not sent: Brave takes a two-letter country code' }])
    await provider.close()
  })

  it('builds {base}/web/search after /res/v1, else appends /res/v1/web/search', async () => {
    server.reply('brave-multi-result')
    const { provider } = providerFor(server, { baseURL: `${server.url}/` })
    await provider.search({ query: 'q' }, call())
    assert.match(server.requests[0]!.path, /^\/res\/v1\/web\/search\?/)
    assert.equal(braveWebSearchEndpoint('https://api.search.brave.com/res/v1').href, 'https://api.search.brave.com/res/v1/web/search')
    assert.equal(braveWebSearchEndpoint('https://api.search.brave.com/res/v1/?x=1#y').href, 'https://api.search.brave.com/res/v1/web/search')
    assert.equal(braveWebSearchEndpoint('https://api.search.brave.com').href, 'https://api.search.brave.com/res/v1/web/search')
    assert.equal(braveWebSearchEndpoint('https://gw.example/brave').href, 'https://gw.example/brave/res/v1/web/search')
    assert.throws(() => braveWebSearchEndpoint('ftp://api.search.brave.com/res/v1'), /unsupported protocol/)
    await provider.close()
  })

  it('reads BRAVE_SEARCH_BASE_URL when the row sets no baseURL', async () => {
    server.reply('brave-multi-result')
    const { provider } = providerFor(server, { baseURL: undefined }, { env: { BRAVE_SEARCH_BASE_URL: `${server.url}/from-env/res/v1` } })
    await provider.search({ query: 'q' }, call())
    assert.match(server.requests[0]!.path, /^\/from-env\/res\/v1\/web\/search\?q=q&/)
    await provider.close()
  })

  it('defaults to https://api.search.brave.com/res/v1 (checked without dispatching)', () => {
    assert.equal(DEFAULT_BRAVE_BASE_URL, 'https://api.search.brave.com/res/v1')
    const provider = createBraveSearch({ apiKeyEnv: 'X', maxResults: 20, timeoutMs: 1000 }, { resolveCredential: async () => ({ value: 'k', source: 'config' }), env: {} })
    assert.equal(provider.available(), true)
    assert.equal(provider.unavailableReason?.(), undefined)
  })

  it('unavailableReason() names the setting to fix', () => {
    const deps = { resolveCredential: async () => ({ value: 'k', source: 'config' as const }) }
    const reason = (settings: object, env: Record<string, string> = {}) => createBraveSearch({ maxResults: 20, timeoutMs: 1000, ...settings }, { ...deps, env }).unavailableReason?.()
    assert.equal(reason({ apiKeyEnv: 'X' }, { BRAVE_SEARCH_BASE_URL: 'nope' }), 'BRAVE_SEARCH_BASE_URL "nope" is not a valid URL; set baseURL or BRAVE_SEARCH_BASE_URL')
    assert.equal(reason({ baseURL: 'http://127.0.0.1:9' }), 'no credential reference (apiKeyEnv) or literal apiKey is configured')
  })

  it('rejects an empty query before any request', async () => {
    const { provider } = providerFor(server)
    const error = await provider.search({ query: ' ' }, call()).catch((error) => error)
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.equal(server.requests.length, 0)
    await provider.close()
  })
})

describe('brave: domain filters as site: operators, reported as they held for the returned sources', () => {
  const server = useFixtureServer(FIXTURES)

  it('allowed domains become `site:a OR site:b` after the query; honoured when every source is on them (subdomains, any case)', async () => {
    server.reply('brave-allowed-domains-satisfied')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', allowedDomains: ['NodeJS.org', 'endoflife.date.', 'NodeJS.org'] }, call())
    assert.equal(new URL(server.requests[0]!.path, server.url).searchParams.get('q'), 'node lts site:nodejs.org OR site:endoflife.date')
    assert.equal(result.queries[0], 'node lts site:nodejs.org OR site:endoflife.date', 'the query sent, operators included')
    assert.deepEqual(result.filters, [
      {
        filter: 'allowed_domains',
        honoured: true,
        note: 'sent to Brave Search as site: operators (its documentation calls search operators experimental); all 3 sources are on the allowed domains',
      },
    ])
    await provider.close()
  })

  it('regression: site:nodejs.org with github.com among the sources is NOT honoured, the note counts them, and no source is dropped', async () => {
    server.reply('brave-allowed-domains-violated')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', allowedDomains: ['nodejs.org'] }, call())
    assert.equal(new URL(server.requests[0]!.path, server.url).searchParams.get('q'), 'node lts site:nodejs.org')
    assert.deepEqual(result.filters, [
      {
        filter: 'allowed_domains',
        honoured: false,
        note: 'sent to Brave Search as site: operators (its documentation calls search operators experimental), but 2 of 4 sources are outside the allowed domains (github.com, notnodejs.org)',
      },
    ])
    assert.deepEqual(
      result.sources.map((source) => source.url),
      ['https://nodejs.org/en/about/previous-releases', 'https://github.com/nodejs/Release', 'https://notnodejs.org/lts', 'https://nodejs.org/en/blog/announcements/v24-lts'],
      'every source is kept, news included',
    )
    await provider.close()
  })

  it('blocked domains become one -site: each, and a source on one of them makes the filter NOT honoured', async () => {
    server.reply('brave-allowed-domains-violated', 'brave-allowed-domains-violated')
    const { provider } = providerFor(server)
    const blocked = await provider.search({ query: 'node lts', blockedDomains: ['GitHub.com', 'pinterest.com'] }, call())
    assert.equal(new URL(server.requests[0]!.path, server.url).searchParams.get('q'), 'node lts -site:github.com -site:pinterest.com')
    assert.deepEqual(blocked.filters, [
      {
        filter: 'blocked_domains',
        honoured: false,
        note: 'sent to Brave Search as -site: operators (its documentation calls search operators experimental), but 1 of 4 sources is on the blocked domains (github.com)',
      },
    ])
    const both = await provider.search({ query: 'node lts', allowedDomains: ['nodejs.org'], blockedDomains: ['example.com'] }, call())
    assert.equal(new URL(server.requests[1]!.path, server.url).searchParams.get('q'), 'node lts site:nodejs.org -site:example.com', 'both lists go out together')
    assert.deepEqual(both.filters.map((filter) => [filter.filter, filter.honoured]), [['allowed_domains', false], ['blocked_domains', true]])
    await provider.close()
  })

  it('with no sources a sent domain filter holds (nothing is outside it) and the note says nothing was checked', async () => {
    server.reply('brave-zero-results')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'qwxzv plokm', allowedDomains: ['nodejs.org'] }, call())
    assert.deepEqual(result.filters, [
      {
        filter: 'allowed_domains',
        honoured: true,
        note: 'sent to Brave Search as site: operators (its documentation calls search operators experimental); no sources came back to check it against',
      },
    ])
    await provider.close()
  })
})
