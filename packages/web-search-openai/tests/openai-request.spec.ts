import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createOpenAISearch, DEFAULT_OPENAI_BASE_URL } from '../src/openai-search.js'
import { openAIResponsesEndpoint } from '../src/to-openai-request.js'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, TEST_KEY } from './helpers.js'

describe('openai: the request as sent', () => {
  const server = useFixtureServer(FIXTURES)

  it('posts to {base}/v1/responses with a Bearer key and the exact JSON body', async () => {
    server.reply('openai-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: 'node lts' }, call())
    assert.equal(server.requests.length, 1)
    const [received] = server.requests
    assert.equal(received!.method, 'POST')
    assert.equal(received!.path, '/v1/responses')
    assert.equal(received!.headers.authorization, `Bearer ${TEST_KEY}`)
    assert.equal(received!.headers['content-type'], 'application/json')
    assert.equal(received!.headers['openai-organization'], undefined)
    assert.equal(received!.headers['openai-project'], undefined)
    const expected = {
      model: 'gpt-4.1-mini',
      input: 'node lts',
      tools: [{ type: 'web_search' }],
      include: ['web_search_call.action.sources'],
      store: false,
    }
    assert.equal(received!.body, JSON.stringify(expected))
    await provider.close()
  })

  it('sends search_context_size, user_location, filters.allowed_domains and the organization/project headers when configured', async () => {
    server.reply('openai-multi-result')
    const { provider } = providerFor(server, { searchContextSize: 'high', organization: 'org-123', project: 'proj_456', model: 'gpt-5' })
    const result = await provider.search({ query: 'q', allowedDomains: ['nodejs.org', 'nodejs.org', ' github.com'], userLocation: { country: 'DE', city: 'Berlin' } }, call())
    const received = server.requests[0]!
    assert.equal(received.headers['openai-organization'], 'org-123')
    assert.equal(received.headers['openai-project'], 'proj_456')
    const body = JSON.parse(received.body)
    assert.equal(body.model, 'gpt-5')
    assert.deepEqual(body.tools, [
      { type: 'web_search', search_context_size: 'high', user_location: { type: 'approximate', country: 'DE', city: 'Berlin' }, filters: { allowed_domains: ['nodejs.org', 'github.com'] } },
    ])
    // user_location as documented; allowed_domains checked: the fixture also returns endoflife.date.
    assert.deepEqual(result.filters, [
      { filter: 'user_location', honoured: true, note: 'sent to OpenAI, which documents user_location for the web_search tool; the results cannot show it' },
      { filter: 'allowed_domains', honoured: false, note: 'sent to OpenAI, but 1 of 4 sources is outside the allowed domains (endoflife.date)' },
    ])
    await provider.close()
  })

  it('says blocked domains are not supported instead of pretending: not sent, reported as not honoured', async () => {
    server.reply('openai-multi-result', 'openai-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q', blockedDomains: ['pinterest.com'] }, call())
    const body = JSON.parse(server.requests[0]!.body)
    assert.deepEqual(body.tools, [{ type: 'web_search' }])
    assert.ok(!server.requests[0]!.body.includes('pinterest.com'))
    assert.equal(result.filters.length, 1)
    assert.equal(result.filters[0]!.filter, 'blocked_domains')
    assert.equal(result.filters[0]!.honoured, false)
    assert.match(result.filters[0]!.note!, /no blocked-domains filter/)
    assert.match(result.filters[0]!.note!, /; none of the 4 sources is on the blocked domains$/)
    // Not honoured either way; when a source is on a blocked domain the note says which.
    const hit = await provider.search({ query: 'q', blockedDomains: ['github.com'] }, call())
    assert.deepEqual(hit.filters, [
      {
        filter: 'blocked_domains',
        honoured: false,
        note: 'not sent: the OpenAI web_search tool has no blocked-domains filter, so results may include those domains; 1 of 4 sources is on the blocked domains (github.com)',
      },
    ])
    assert.equal(hit.sources.length, 4, 'no source is dropped')
    await provider.close()
  })

  it('recency: nothing in the body carries it, and it is reported NOT honoured, saying the tool has no such parameter', async () => {
    server.reply('openai-multi-result', 'openai-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: 'q' }, call())
    const result = await provider.search({ query: 'q', recency: 'month' }, call())
    assert.equal(server.requests[1]!.body, server.requests[0]!.body, 'the body is the one without recency')
    assert.deepEqual(result.filters, [{ filter: 'recency', honoured: false, note: 'not sent: the OpenAI web_search tool has no date or recency parameter' }])
    await provider.close()
  })

  it('appends only /responses to a base that already ends in /v1', async () => {
    server.reply('openai-multi-result')
    const { provider } = providerFor(server, { baseURL: `${server.url}/v1/` })
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/v1/responses')
    assert.equal(openAIResponsesEndpoint('https://api.openai.com').href, 'https://api.openai.com/v1/responses')
    assert.equal(openAIResponsesEndpoint('https://gw.example/openai/v1').href, 'https://gw.example/openai/v1/responses')
    await provider.close()
  })

  it('reads OPENAI_SEARCH_BASE_URL when the row sets no baseURL, and never OPENAI_BASE_URL', async () => {
    server.reply('openai-multi-result')
    const { provider } = providerFor(
      server,
      { baseURL: undefined },
      { env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/sdk-base', OPENAI_SEARCH_BASE_URL: `${server.url}/from-env` } },
    )
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/from-env/v1/responses')
    await provider.close()
  })

  it('unavailableReason() names the setting to fix, and is undefined when available', () => {
    const deps = { resolveCredential: async () => ({ value: 'k', source: 'config' as const }), env: {} }
    const base = { model: 'm', timeoutMs: 1000 }
    const reason = (settings: object, env: Record<string, string> = {}) => createOpenAISearch({ ...base, ...settings }, { ...deps, env }).unavailableReason?.()
    assert.equal(reason({ apiKeyEnv: 'X' }), undefined)
    assert.equal(reason({ apiKeyEnv: 'X', baseURL: 'not a url' }), 'baseURL "not a url" is not a valid URL; set baseURL or OPENAI_SEARCH_BASE_URL')
    assert.equal(reason({ apiKeyEnv: 'X' }, { OPENAI_SEARCH_BASE_URL: 'nope' }), 'OPENAI_SEARCH_BASE_URL "nope" is not a valid URL; set baseURL or OPENAI_SEARCH_BASE_URL')
    assert.equal(reason({}), 'no credential reference (apiKeyEnv) or literal apiKey is configured')
  })

  it('available() is local: default base https://api.openai.com, a credential reference or literal needed', () => {
    assert.equal(DEFAULT_OPENAI_BASE_URL, 'https://api.openai.com')
    const deps = { resolveCredential: async () => ({ value: 'k', source: 'config' as const }), env: {} }
    const base = { model: 'm', timeoutMs: 1000 }
    assert.equal(createOpenAISearch({ ...base, apiKeyEnv: 'X' }, deps).available(), true)
    assert.equal(createOpenAISearch({ ...base, apiKey: 'literal' }, deps).available(), true)
    assert.equal(createOpenAISearch({ ...base }, deps).available(), false)
    assert.equal(createOpenAISearch({ ...base, apiKeyEnv: 'X', baseURL: 'not a url' }, deps).available(), false)
  })
})

describe('openai: allowed_domains reported as it held for the returned sources', () => {
  const server = useFixtureServer(FIXTURES)

  it('regression: allowed_domains [nodejs.org] with github.com sources is NOT honoured, the note counts them, and no source is dropped', async () => {
    server.reply('openai-allowed-domains-violated')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', allowedDomains: ['nodejs.org'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools[0].filters, { allowed_domains: ['nodejs.org'] })
    assert.deepEqual(result.filters, [
      { filter: 'allowed_domains', honoured: false, note: 'sent to OpenAI, but 2 of 5 sources are outside the allowed domains (github.com, notnodejs.org)' },
    ])
    assert.deepEqual(
      result.sources.map((source) => source.url),
      [
        'https://nodejs.org/en/about/previous-releases',
        'https://github.com/nodejs/Release',
        'https://Blog.NodeJS.org/release/v24.11.0',
        'https://notnodejs.org/lts',
        'https://nodejs.org/en/blog/release/v24.11.0?utm_source=openai',
      ],
      'every source is kept, as returned',
    )
    await provider.close()
  })

  it('allowed_domains is honoured when every source, citations included, is on the domains: subdomains included, case-insensitive', async () => {
    server.reply('openai-allowed-domains-satisfied')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', allowedDomains: ['NodeJS.org'] }, call())
    assert.equal(result.sources.length, 3)
    assert.deepEqual(result.filters, [{ filter: 'allowed_domains', honoured: true, note: 'sent to OpenAI; all 3 sources are on the allowed domains' }])
    await provider.close()
  })
})
