import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createExaSearch, DEFAULT_EXA_BASE_URL, type ExaSearchDeps } from '../src/exa-search.js'
import { exaSearchEndpoint } from '../src/to-exa-request.js'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

/** The clock the recency tests run at: 2026-12-01T12:00:00Z. */
const NOW = Date.parse('2026-12-01T12:00:00.000Z')
/** Passed as the provider's deps: its `now` reaches createExaSearch through the harness. */
const CLOCK: Partial<ExaSearchDeps> = { now: () => NOW }

describe('exa: the request as sent', () => {
  const server = useFixtureServer(FIXTURES)

  it('POSTs /search with the key in x-api-key and the exact JSON body: highlights asked for as the snippets', async () => {
    server.reply('exa-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: '  rust async runtime ' }, call())
    const [received] = server.requests
    assert.equal(received!.method, 'POST')
    assert.equal(received!.path, '/search')
    assert.equal(received!.headers['x-api-key'], TEST_KEY)
    assert.equal(received!.headers.authorization, undefined, 'the key travels once, in x-api-key')
    assert.equal(received!.headers['content-type'], 'application/json')
    assert.equal(received!.body, '{"query":"rust async runtime","numResults":10,"contents":{"highlights":{"maxCharacters":1000}}}')
    await provider.close()
  })

  it('the row settings: type, numResults (at most 100), and text instead of highlights with its size', async () => {
    server.reply('exa-text')
    const { provider } = providerFor(server, { type: 'fast', maxResults: 500, snippets: 'text', snippetMaxCharacters: 300 })
    const result = await provider.search({ query: 'tokio' }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body), { query: 'tokio', numResults: 100, type: 'fast', contents: { text: { maxCharacters: 300 } } })
    assert.equal(result.sources[0]!.snippet, 'Tokio is an asynchronous runtime for the Rust programming language. It provides...')
    assert.equal(result.sources[0]!.extraSnippets, undefined, 'highlights are not read when text was asked for')
    await provider.close()
  })

  it('allowed_domains go out as includeDomains and are honoured only when every source complies; blocked ones as excludeDomains', async () => {
    server.reply('exa-allowed-domains', 'exa-allowed-domains')
    const { provider } = providerFor(server)
    const allowed = await provider.search({ query: 'tokio', allowedDomains: ['Docs.RS', 'tokio.rs'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).includeDomains, ['docs.rs', 'tokio.rs'])
    assert.deepEqual(allowed.filters, [
      { filter: 'allowed_domains', honoured: false, note: 'sent to Exa as includeDomains, but 1 of 2 sources is outside the allowed domains (elsewhere.example.org)' },
    ])
    assert.equal(allowed.sources.length, 2, 'a source off the list is reported, never dropped')
    const blocked = await provider.search({ query: 'tokio', blockedDomains: ['reddit.com'] }, call())
    assert.deepEqual(JSON.parse(server.requests[1]!.body).excludeDomains, ['reddit.com'])
    assert.deepEqual(blocked.filters, [{ filter: 'blocked_domains', honoured: true, note: 'sent to Exa as excludeDomains; none of the 2 sources is on the blocked domains' }])
    await provider.close()
  })

  for (const [recency, start] of [
    ['day', '2026-11-30T12:00:00.000Z'],
    ['week', '2026-11-24T12:00:00.000Z'],
    ['month', '2026-10-31T12:00:00.000Z'],
    ['year', '2025-12-01T12:00:00.000Z'],
  ] as const) {
    it(`recency ${recency} goes out as startPublishedDate ${start} and is honoured when no source is dated before it`, async () => {
      server.reply('exa-dated')
      const { provider } = providerFor(server, {}, CLOCK)
      const result = await provider.search({ query: 'news', recency }, call())
      assert.equal(JSON.parse(server.requests[0]!.body).startPublishedDate, start)
      assert.deepEqual(result.filters, [{ filter: 'recency', honoured: true, note: `sent to Exa as startPublishedDate=${start}; the one dated source is after it` }])
      await provider.close()
    })
  }

  it('recency: a source dated before the start makes it NOT honoured, counted in the note, and the source stays', async () => {
    server.reply('exa-stale')
    const { provider } = providerFor(server, {}, CLOCK)
    const result = await provider.search({ query: 'news', recency: 'week' }, call())
    assert.deepEqual(result.filters, [
      { filter: 'recency', honoured: false, note: 'sent to Exa as startPublishedDate=2026-11-24T12:00:00.000Z, but 1 of 2 dated sources was published before it' },
    ])
    assert.equal(result.sources.length, 2)
    await provider.close()
  })

  it('user_location: a two-letter country goes out as userLocation and is honoured; city and the rest are not sent and say so', async () => {
    server.reply('exa-multi-result', 'exa-multi-result')
    const { provider } = providerFor(server)
    const country = await provider.search({ query: 'q', userLocation: { type: 'approximate', country: 'de' } }, call())
    assert.equal(JSON.parse(server.requests[0]!.body).userLocation, 'DE')
    assert.deepEqual(country.filters, [{ filter: 'user_location', honoured: true, note: 'country DE sent to Exa as userLocation' }])
    const full = await provider.search({ query: 'q', userLocation: { city: 'Berlin', country: 'DE', timezone: 'Europe/Berlin' } }, call())
    assert.ok(!server.requests[1]!.body.includes('Berlin'))
    assert.deepEqual(full.filters, [
      { filter: 'user_location', honoured: false, note: "country DE sent to Exa as userLocation; city, timezone not sent: Exa's search has no such field" },
    ])
    await provider.close()
  })

  it('the endpoint: {base}/search, query and fragment dropped; the default base is https://api.exa.ai', () => {
    assert.equal(exaSearchEndpoint('https://proxy.example/exa/?x=1#f').href, 'https://proxy.example/exa/search')
    assert.equal(exaSearchEndpoint(DEFAULT_EXA_BASE_URL).href, 'https://api.exa.ai/search')
    assert.throws(() => exaSearchEndpoint('ftp://api.exa.ai'), /unsupported protocol/)
  })

  it('EXA_SEARCH_BASE_URL is read when the row sets no baseURL', async () => {
    server.reply('exa-multi-result')
    const provider = createExaSearch(
      { apiKeyEnv: 'K', maxResults: 5, snippets: 'highlights', snippetMaxCharacters: 500, timeoutMs: 5_000 },
      { resolveCredential: async () => ({ value: TEST_KEY, source: 'env' }), env: { EXA_SEARCH_BASE_URL: `${server.url}/proxied` } },
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
