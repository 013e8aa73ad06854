import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createGeminiSearch, DEFAULT_GEMINI_BASE_URL } from '../src/gemini-search.js'
import { geminiGenerateContentEndpoint, searchInstruction } from '../src/to-gemini-request.js'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('gemini: the request as sent', () => {
  const server = useFixtureServer(FIXTURES)

  it('posts to {base}/v1beta/models/{model}:generateContent with x-goog-api-key and the exact JSON body, the key never in the URL', async () => {
    server.reply('gemini-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: 'node lts' }, call())
    assert.equal(server.requests.length, 1)
    const [received] = server.requests
    assert.equal(received!.method, 'POST')
    assert.equal(received!.path, '/v1beta/models/gemini-2.5-flash:generateContent')
    assert.equal(received!.headers['x-goog-api-key'], TEST_KEY)
    assert.equal(received!.headers['content-type'], 'application/json')
    assert.equal(received!.headers.authorization, undefined, 'the key travels once, in x-goog-api-key')
    assert.ok(!received!.path.includes(TEST_KEY) && !received!.path.includes('key='))
    const expected = {
      contents: [{ role: 'user', parts: [{ text: searchInstruction('node lts') }] }],
      tools: [{ google_search: {} }],
      generationConfig: { maxOutputTokens: 1024 },
    }
    assert.equal(received!.body, JSON.stringify(expected))
    await provider.close()
  })

  it('recency: sent as google_search.timeRangeFilter ending now, reported honoured as documented', async () => {
    server.reply('gemini-multi-result', 'gemini-multi-result')
    const { provider } = providerFor(server)
    const week = await provider.search({ query: 'node release', recency: 'week' }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools, [
      { google_search: { timeRangeFilter: { startTime: '2026-11-25T12:00:00.000Z', endTime: '2026-12-02T12:00:00.000Z' } } },
    ])
    assert.deepEqual(week.filters, [
      {
        filter: 'recency',
        honoured: true,
        note: 'sent to Gemini as google_search.timeRangeFilter from 2026-11-25T12:00:00.000Z to 2026-12-02T12:00:00.000Z (the last week), which its API reference documents as filtering the search results; the sources carry no dates to check it against',
      },
    ])
    await provider.search({ query: 'q', recency: 'day' }, call())
    assert.equal(JSON.parse(server.requests[1]!.body).tools[0].google_search.timeRangeFilter.startTime, '2026-12-01T12:00:00.000Z')
    await provider.close()
  })

  it('domain filters and user_location have no field on the Gemini API: not sent, reported not honoured, no source dropped', async () => {
    server.reply('gemini-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q', allowedDomains: ['nodejs.org'], blockedDomains: ['github.com'], userLocation: { country: 'DE' } }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools, [{ google_search: {} }], 'nothing of them is sent')
    assert.deepEqual(
      result.filters.map((filter) => [filter.filter, filter.honoured]),
      [['allowed_domains', false], ['blocked_domains', false], ['user_location', false]],
    )
    assert.match(result.filters[0]!.note!, /^not sent: Gemini's google_search tool takes no domain list on the Gemini API \(its excludeDomains is Vertex AI's only\)/)
    assert.match(result.filters[2]!.note!, /latitude and longitude/)
    assert.equal(result.sources.length, 4)
    await provider.close()
  })

  it('a domain entry that is not a domain is INVALID_ARGUMENT, and a recency that is not a window, before any request', async () => {
    const { provider } = providerFor(server)
    assert.equal((await rejection(provider.search({ query: 'q', allowedDomains: ['https://x.org/path'] }, call()))).code, 'INVALID_ARGUMENT')
    assert.equal((await rejection(provider.search({ query: 'q', recency: 'hour' as never }, call()))).code, 'INVALID_ARGUMENT')
    assert.equal(server.requests.length, 0)
    await provider.close()
  })

  it('the endpoint: /v1beta appended unless the base ends in /v1beta or /v1; a models/ prefix dropped; a model that is not an id refused', () => {
    assert.equal(geminiGenerateContentEndpoint(DEFAULT_GEMINI_BASE_URL, 'gemini-2.5-flash').href, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent')
    assert.equal(geminiGenerateContentEndpoint('https://gw.example/google/v1beta/', 'models/gemini-3-pro').href, 'https://gw.example/google/v1beta/models/gemini-3-pro:generateContent')
    assert.equal(geminiGenerateContentEndpoint('https://gw.example/v1?x=1', 'm.1_a-b').href, 'https://gw.example/v1/models/m.1_a-b:generateContent')
    assert.throws(() => geminiGenerateContentEndpoint(DEFAULT_GEMINI_BASE_URL, '../../v1/files'), /is not a Gemini model id/)
    assert.throws(() => geminiGenerateContentEndpoint('ftp://x', 'm'), /unsupported protocol/)
  })

  it('reads GEMINI_SEARCH_BASE_URL when the row sets no baseURL; a bad model makes it unavailable, naming why', async () => {
    server.reply('gemini-multi-result')
    const { provider } = providerFor(server, { baseURL: undefined }, { env: { GEMINI_SEARCH_BASE_URL: `${server.url}/gw/v1beta` } })
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/gw/v1beta/models/gemini-2.5-flash:generateContent')
    await provider.close()
    const deps = { resolveCredential: async () => ({ value: 'k', source: 'config' as const }), env: {} }
    const reason = createGeminiSearch({ apiKeyEnv: 'X', model: 'a b', maxOutputTokens: 1, timeoutMs: 1000 }, deps).unavailableReason?.()
    assert.match(reason!, /is not a Gemini model id/)
    assert.equal(createGeminiSearch({ apiKeyEnv: 'X', model: 'gemini-2.5-flash', maxOutputTokens: 1, timeoutMs: 1000 }, deps).unavailableReason?.(), undefined)
  })
})
