import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createPerplexitySearch, DEFAULT_PERPLEXITY_BASE_URL } from '../src/perplexity-search.js'
import { perplexitySearchEndpoint } from '../src/to-perplexity-request.js'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('perplexity: the request as sent', () => {
  const server = useFixtureServer(FIXTURES)

  it('POSTs /search with the key as a Bearer token and the exact JSON body; unset options are left out, never null', async () => {
    server.reply('perplexity-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: '  rust async runtime ' }, call())
    const [received] = server.requests
    assert.equal(received!.method, 'POST')
    assert.equal(received!.path, '/search')
    assert.equal(received!.headers.authorization, `Bearer ${TEST_KEY}`)
    assert.equal(received!.headers['content-type'], 'application/json')
    assert.equal(received!.body, '{"query":"rust async runtime","max_results":10}')
    await provider.close()
  })

  it('the row settings go out as search_mode and max_tokens_per_page; max_results is clamped to 20', async () => {
    server.reply('perplexity-multi-result')
    const { provider } = providerFor(server, { searchMode: 'academic', maxTokensPerPage: 512, maxResults: 50 })
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.body, '{"query":"q","max_results":20,"search_mode":"academic","max_tokens_per_page":512}')
    await provider.close()
  })

  it('allowed_domains go out in search_domain_filter and are honoured only when every source complies', async () => {
    server.reply('perplexity-allowed-domains', 'perplexity-allowed-domains-violated')
    const { provider } = providerFor(server)
    const kept = await provider.search({ query: 'tokio', allowedDomains: ['Docs.RS', 'tokio.rs'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).search_domain_filter, ['docs.rs', 'tokio.rs'])
    assert.deepEqual(kept.filters, [{ filter: 'allowed_domains', honoured: true, note: 'sent to Perplexity in search_domain_filter; all 2 sources are on the allowed domains' }])
    const broken = await provider.search({ query: 'tokio', allowedDomains: ['docs.rs', 'tokio.rs'] }, call())
    assert.deepEqual(broken.filters, [
      { filter: 'allowed_domains', honoured: false, note: 'sent to Perplexity in search_domain_filter, but 1 of 2 sources is outside the allowed domains (elsewhere.example.org)' },
    ])
    assert.equal(broken.sources.length, 2, 'a source off the list is reported, never dropped')
    await provider.close()
  })

  it('blocked_domains go out in search_domain_filter each prefixed with -', async () => {
    server.reply('perplexity-allowed-domains')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'tokio', blockedDomains: ['reddit.com', 'quora.com'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).search_domain_filter, ['-reddit.com', '-quora.com'])
    assert.deepEqual(result.filters, [
      { filter: 'blocked_domains', honoured: true, note: 'sent to Perplexity in search_domain_filter, each prefixed with -; none of the 2 sources is on the blocked domains' },
    ])
    await provider.close()
  })

  it('both lists: only the allowed domains go out (one filter is an allow or a deny list), and the blocked ones are reported not sent', async () => {
    server.reply('perplexity-allowed-domains')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'tokio', allowedDomains: ['docs.rs', 'tokio.rs'], blockedDomains: ['reddit.com'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).search_domain_filter, ['docs.rs', 'tokio.rs'])
    assert.equal(result.filters[1]!.filter, 'blocked_domains')
    assert.equal(result.filters[1]!.honoured, false)
    assert.match(result.filters[1]!.note!, /^not sent: search_domain_filter is either an allow list or a deny list/)
    await provider.close()
  })

  it('more than 20 domains is INVALID_ARGUMENT saying the bound, and nothing is sent (the list is never cut)', async () => {
    const { provider } = providerFor(server)
    const domains = Array.from({ length: 21 }, (_, index) => `site${index}.example`)
    const error = await rejection(provider.search({ query: 'q', allowedDomains: domains }, call()))
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.equal(error.message, 'Perplexity takes at most 20 domains in search_domain_filter, and allowedDomains has 21; give 20 or fewer.')
    assert.equal(server.requests.length, 0)
    await provider.close()
  })

  for (const recency of ['day', 'week', 'month', 'year'] as const) {
    it(`recency ${recency} goes out as search_recency_filter=${recency} and is reported honoured`, async () => {
      server.reply('perplexity-multi-result')
      const { provider } = providerFor(server)
      const result = await provider.search({ query: 'q', recency }, call())
      assert.equal(server.requests[0]!.body, `{"query":"q","max_results":10,"search_recency_filter":"${recency}"}`)
      assert.deepEqual(result.filters, [
        { filter: 'recency', honoured: true, note: `sent to Perplexity as search_recency_filter=${recency}, which it documents as a filter on when the results were published` },
      ])
      await provider.close()
    })
  }

  it('user_location: a two-letter country goes out as country and is honoured; city and the rest are not sent and say so', async () => {
    server.reply('perplexity-multi-result', 'perplexity-multi-result')
    const { provider } = providerFor(server)
    const country = await provider.search({ query: 'q', userLocation: { type: 'approximate', country: 'gb' } }, call())
    assert.equal(JSON.parse(server.requests[0]!.body).country, 'GB')
    assert.deepEqual(country.filters, [{ filter: 'user_location', honoured: true, note: 'country GB sent to Perplexity as country' }])
    const city = await provider.search({ query: 'q', userLocation: { city: 'Leeds' } }, call())
    assert.ok(!server.requests[1]!.body.includes('Leeds'))
    assert.deepEqual(city.filters, [
      { filter: 'user_location', honoured: false, note: 'no country, the only part Perplexity takes, was given; city not sent: the Search API has no such field' },
    ])
    await provider.close()
  })

  it('the endpoint: {base}/search, query and fragment dropped; the default base is https://api.perplexity.ai', () => {
    assert.equal(perplexitySearchEndpoint('https://proxy.example/pplx/?x=1#f').href, 'https://proxy.example/pplx/search')
    assert.equal(perplexitySearchEndpoint(DEFAULT_PERPLEXITY_BASE_URL).href, 'https://api.perplexity.ai/search')
    assert.throws(() => perplexitySearchEndpoint('ftp://api.perplexity.ai'), /unsupported protocol/)
  })

  it('PERPLEXITY_SEARCH_BASE_URL is read when the row sets no baseURL', async () => {
    server.reply('perplexity-multi-result')
    const provider = createPerplexitySearch(
      { apiKeyEnv: 'K', maxResults: 5, timeoutMs: 5_000 },
      { resolveCredential: async () => ({ value: TEST_KEY, source: 'env' }), env: { PERPLEXITY_SEARCH_BASE_URL: `${server.url}/proxied` } },
    )
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/proxied/search')
    await provider.close()
  })
})
