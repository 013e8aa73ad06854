import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createTavilySearch, DEFAULT_TAVILY_BASE_URL } from '../src/tavily-search.js'
import { tavilySearchEndpoint } from '../src/to-tavily-request.js'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('tavily: the request as sent', () => {
  const server = useFixtureServer(FIXTURES)

  it('POSTs /search with the key as a Bearer token and the exact JSON body; unset options are left out, never null', async () => {
    server.reply('tavily-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: '  rust async runtime ' }, call())
    const [received] = server.requests
    assert.equal(received!.method, 'POST')
    assert.equal(received!.path, '/search')
    assert.equal(received!.headers.authorization, `Bearer ${TEST_KEY}`)
    assert.equal(received!.headers['content-type'], 'application/json')
    assert.equal(received!.headers['x-api-key'], undefined, 'the key travels once')
    assert.equal(received!.body, '{"query":"rust async runtime","max_results":10}')
    await provider.close()
  })

  it('the row settings go out as search_depth, topic and include_answer', async () => {
    server.reply('tavily-news')
    const { provider } = providerFor(server, { searchDepth: 'advanced', topic: 'news', includeAnswer: 'basic', maxResults: 3 })
    const result = await provider.search({ query: 'storm warning' }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body), { query: 'storm warning', max_results: 3, search_depth: 'advanced', topic: 'news', include_answer: 'basic' })
    assert.equal(result.sources[0]!.kind, 'news', 'topic news lists its results as news')
    assert.equal(result.sources[0]!.publishedDate, 'Tue, 04 Mar 2025 06:30:00 GMT')
    await provider.close()
  })

  it('allowed_domains go out as include_domains, normalised, and are honoured only when every source complies', async () => {
    server.reply('tavily-allowed-domains', 'tavily-allowed-domains-violated')
    const { provider } = providerFor(server)
    const kept = await provider.search({ query: 'tokio', allowedDomains: ['Docs.RS', 'tokio.rs'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).include_domains, ['docs.rs', 'tokio.rs'])
    assert.deepEqual(kept.filters, [{ filter: 'allowed_domains', honoured: true, note: 'sent to Tavily as include_domains; all 2 sources are on the allowed domains' }])
    const broken = await provider.search({ query: 'tokio', allowedDomains: ['docs.rs', 'tokio.rs'] }, call())
    assert.deepEqual(broken.filters, [
      { filter: 'allowed_domains', honoured: false, note: 'sent to Tavily as include_domains, but 1 of 2 sources is outside the allowed domains (elsewhere.example.org)' },
    ])
    assert.equal(broken.sources.length, 2, 'a source off the list is reported, never dropped')
    await provider.close()
  })

  it('blocked_domains go out as exclude_domains', async () => {
    server.reply('tavily-allowed-domains')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'tokio', blockedDomains: ['reddit.com'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).exclude_domains, ['reddit.com'])
    assert.deepEqual(result.filters, [{ filter: 'blocked_domains', honoured: true, note: 'sent to Tavily as exclude_domains; none of the 2 sources is on the blocked domains' }])
    await provider.close()
  })

  for (const recency of ['day', 'week', 'month', 'year'] as const) {
    it(`recency ${recency} goes out as time_range=${recency} and is reported honoured`, async () => {
      server.reply('tavily-news')
      const { provider } = providerFor(server)
      const result = await provider.search({ query: 'storm warning', recency }, call())
      assert.equal(JSON.parse(server.requests[0]!.body).time_range, recency)
      assert.deepEqual(result.filters, [
        { filter: 'recency', honoured: true, note: `sent to Tavily as time_range=${recency}, which it documents as keeping to results published or updated within that ${recency}` },
      ])
      await provider.close()
    })
  }

  it('user_location is not sent and is reported as not honoured, saying why', async () => {
    server.reply('tavily-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q', userLocation: { type: 'approximate', country: 'DE', city: 'Berlin' } }, call())
    assert.ok(!server.requests[0]!.body.includes('Berlin'))
    assert.ok(!server.requests[0]!.body.includes('country'))
    assert.equal(result.filters.length, 1)
    assert.equal(result.filters[0]!.filter, 'user_location')
    assert.equal(result.filters[0]!.honoured, false)
    assert.match(result.filters[0]!.note!, /^not sent: Tavily's only location parameter/)
    await provider.close()
  })

  it('max_results is clamped to Tavily\'s 20', async () => {
    server.reply('tavily-multi-result')
    const { provider } = providerFor(server, { maxResults: 50 })
    await provider.search({ query: 'q' }, call())
    assert.equal(JSON.parse(server.requests[0]!.body).max_results, 20)
    await provider.close()
  })

  it('the endpoint: {base}/search, query and fragment dropped; the default base is https://api.tavily.com', () => {
    assert.equal(tavilySearchEndpoint('https://proxy.example/tavily/?x=1#f').href, 'https://proxy.example/tavily/search')
    assert.equal(tavilySearchEndpoint(DEFAULT_TAVILY_BASE_URL).href, 'https://api.tavily.com/search')
    assert.throws(() => tavilySearchEndpoint('ftp://api.tavily.com'), /unsupported protocol/)
  })

  it('TAVILY_SEARCH_BASE_URL is read when the row sets no baseURL', async () => {
    server.reply('tavily-multi-result')
    const provider = createTavilySearch(
      { apiKeyEnv: 'K', maxResults: 5, timeoutMs: 5_000 },
      { resolveCredential: async () => ({ value: TEST_KEY, source: 'env' }), env: { TAVILY_SEARCH_BASE_URL: `${server.url}/proxied` } },
    )
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/proxied/search')
    await provider.close()
  })

  it('a blank query is INVALID_ARGUMENT and nothing is sent', async () => {
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: '   ' }, call()))
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.equal(server.requests.length, 0)
    await provider.close()
  })
})
