import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createDeepSeekSearch, DEFAULT_DEEPSEEK_BASE_URL } from '../src/deepseek-search.js'
import { messagesEndpoint, searchInstruction } from 'dsh-provider-kit'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, TEST_KEY } from './helpers.js'

describe('deepseek: the request as sent', () => {
  const server = useFixtureServer(FIXTURES)

  it('posts to {base}/v1/messages with x-api-key, anthropic-version and the exact JSON body', async () => {
    server.reply('deepseek-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: 'node lts' }, call())
    assert.equal(server.requests.length, 1)
    const [received] = server.requests
    assert.equal(received!.method, 'POST')
    assert.equal(received!.path, '/anthropic/v1/messages')
    assert.equal(received!.headers['x-api-key'], TEST_KEY)
    assert.equal(received!.headers['anthropic-version'], '2023-06-01')
    assert.equal(received!.headers['content-type'], 'application/json')
    assert.equal(received!.headers.authorization, undefined, 'the key travels once, in x-api-key')
    assert.equal(received!.headers['anthropic-beta'], undefined)
    const expected = {
      model: 'deepseek-v4-flash',
      max_tokens: 1024,
      messages: [{ role: 'user', content: searchInstruction('node lts') }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
    }
    assert.equal(received!.body, JSON.stringify(expected))
    assert.match(searchInstruction('node lts'), /node lts/)
    await provider.close()
  })

  it('sends allowed_domains and user_location when the request carries them', async () => {
    server.reply('deepseek-multi-result')
    const { provider } = providerFor(server, { apiVersion: '2099-01-01', model: 'deepseek-v4-pro', maxUses: 1 })
    const result = await provider.search(
      { query: 'q', allowedDomains: ['nodejs.org', ' endoflife.date ', 'nodejs.org'], userLocation: { city: 'Berlin', country: 'DE', timezone: 'Europe/Berlin' } },
      call(),
    )
    const body = JSON.parse(server.requests[0]!.body)
    assert.equal(server.requests[0]!.headers['anthropic-version'], '2099-01-01')
    assert.equal(body.model, 'deepseek-v4-pro')
    assert.deepEqual(body.tools, [
      {
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: 1,
        allowed_domains: ['nodejs.org', 'endoflife.date'],
        user_location: { type: 'approximate', city: 'Berlin', country: 'DE', timezone: 'Europe/Berlin' },
      },
    ])
    // The fixture's sources include github.com: sent is not the same as honoured.
    assert.deepEqual(result.filters, [
      { filter: 'allowed_domains', honoured: false, note: 'sent to DeepSeek, but 1 of 4 sources is outside the allowed domains (github.com)' },
      { filter: 'user_location', honoured: false, note: 'sent to DeepSeek, but its documentation does not say it applies user_location, and the results cannot show it' },
    ])
    await provider.close()
  })

  it('sends blocked_domains alone, and never both lists (blocked is reported as not sent)', async () => {
    server.reply('deepseek-multi-result', 'deepseek-multi-result')
    const { provider } = providerFor(server)
    const alone = await provider.search({ query: 'q', blockedDomains: ['pinterest.com'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools[0].blocked_domains, ['pinterest.com'])
    assert.deepEqual(alone.filters, [{ filter: 'blocked_domains', honoured: true, note: 'sent to DeepSeek; none of the 4 sources is on the blocked domains' }])
    const both = await provider.search({ query: 'q', allowedDomains: ['a.org'], blockedDomains: ['b.org'] }, call())
    const tool = JSON.parse(server.requests[1]!.body).tools[0]
    assert.deepEqual(tool.allowed_domains, ['a.org'])
    assert.equal(tool.blocked_domains, undefined)
    assert.deepEqual(both.filters.find((filter) => filter.filter === 'blocked_domains'), {
      filter: 'blocked_domains',
      honoured: false,
      note: 'not sent: the web search tool takes allowed_domains or blocked_domains, never both; none of the 4 sources is on the blocked domains',
    })
    await provider.close()
  })

  it('recency: not sent (the tool has no date parameter), reported not honoured after the other filters, no source dropped', async () => {
    server.reply('deepseek-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q', recency: 'month', blockedDomains: ['pinterest.com'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools, [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3, blocked_domains: ['pinterest.com'] }])
    assert.deepEqual(result.filters.map((filter) => [filter.filter, filter.honoured]), [['blocked_domains', true], ['recency', false]])
    assert.equal(result.filters[1]!.note, 'not sent: the DeepSeek web search tool (web_search_20250305) has no date or recency parameter, so sources older than a month may be among them')
    assert.equal(result.sources.length, 4)
    await provider.close()
  })

  it('appends only /messages to a base that already ends in /v1', async () => {
    server.reply('deepseek-multi-result')
    const { provider } = providerFor(server, { baseURL: `${server.url}/anthropic/v1/` })
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/anthropic/v1/messages')
    assert.equal(messagesEndpoint('https://api.deepseek.com/anthropic').href, 'https://api.deepseek.com/anthropic/v1/messages')
    assert.equal(messagesEndpoint('https://gw.example/anthropic/v1').href, 'https://gw.example/anthropic/v1/messages')
    await provider.close()
  })

  it('reads DEEPSEEK_SEARCH_BASE_URL when the row sets no baseURL, and never DEEPSEEK_BASE_URL', async () => {
    server.reply('deepseek-multi-result')
    const { provider } = providerFor(
      server,
      { baseURL: undefined },
      { env: { DEEPSEEK_BASE_URL: 'http://127.0.0.1:9/chat-completions-base', DEEPSEEK_SEARCH_BASE_URL: `${server.url}/from-env/anthropic` } },
    )
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/from-env/anthropic/v1/messages')
    await provider.close()
  })

  it('defaults to https://api.deepseek.com/anthropic (checked without dispatching)', () => {
    assert.equal(DEFAULT_DEEPSEEK_BASE_URL, 'https://api.deepseek.com/anthropic')
    const provider = createDeepSeekSearch(
      { apiKeyEnv: 'X', model: 'm', maxTokens: 1, maxUses: 1, apiVersion: 'v', timeoutMs: 1000 },
      { resolveCredential: async () => ({ value: 'k', source: 'config' }), env: { DEEPSEEK_BASE_URL: 'not a url' } },
    )
    assert.equal(provider.available(), true)
  })

  it('unavailableReason() names the setting to fix, and is undefined when available', () => {
    const deps = { resolveCredential: async () => ({ value: 'k', source: 'config' as const }), env: {} }
    const base = { model: 'm', maxTokens: 1, maxUses: 1, apiVersion: 'v', timeoutMs: 1000 }
    const reason = (settings: object, env: Record<string, string> = {}) => createDeepSeekSearch({ ...base, ...settings }, { ...deps, env }).unavailableReason?.()
    assert.equal(reason({ apiKeyEnv: 'X', baseURL: 'http://127.0.0.1:9' }), undefined)
    assert.equal(reason({ apiKeyEnv: 'X' }), undefined, 'the default base URL builds')
    assert.equal(reason({ apiKeyEnv: 'X', baseURL: 'not a url' }), 'baseURL "not a url" is not a valid URL; set baseURL or DEEPSEEK_SEARCH_BASE_URL')
    assert.equal(reason({ apiKeyEnv: 'X' }, { DEEPSEEK_SEARCH_BASE_URL: 'nope' }), 'DEEPSEEK_SEARCH_BASE_URL "nope" is not a valid URL; set baseURL or DEEPSEEK_SEARCH_BASE_URL')
    assert.equal(
      reason({ apiKeyEnv: 'X', baseURL: 'ftp://user:secret@127.0.0.1/x?token=t' }),
      'baseURL "ftp://127.0.0.1/x" cannot be used (unsupported protocol ftp:); set baseURL or DEEPSEEK_SEARCH_BASE_URL',
      'a URL that parses is shown without credentials or query',
    )
    assert.equal(reason({ baseURL: 'http://127.0.0.1:9' }), 'no credential reference (apiKeyEnv) or literal apiKey is configured')
    assert.equal(
      reason({ apiKey: '', baseURL: 'not a url' }),
      'no credential reference (apiKeyEnv) or literal apiKey is configured; baseURL "not a url" is not a valid URL; set baseURL or DEEPSEEK_SEARCH_BASE_URL',
    )
  })

  it('a search with a base URL that does not build is WEB_PROVIDER_UNAVAILABLE with the same reason, nothing dispatched', async () => {
    const { provider } = providerFor(server, { baseURL: 'not a url' })
    const error = await provider.search({ query: 'q' }, call()).catch((error) => error)
    assert.equal(error.code, 'WEB_PROVIDER_UNAVAILABLE')
    assert.equal(error.message, 'The DeepSeek search is not available: baseURL "not a url" is not a valid URL; set baseURL or DEEPSEEK_SEARCH_BASE_URL.')
    assert.equal(server.requests.length, 0)
    await provider.close()
  })

  it('available() is local: a base URL that parses and a credential reference or literal', () => {
    const deps = { resolveCredential: async () => ({ value: 'k', source: 'config' as const }), env: {} }
    const base = { model: 'm', maxTokens: 1, maxUses: 1, apiVersion: 'v', timeoutMs: 1000 }
    assert.equal(createDeepSeekSearch({ ...base, apiKeyEnv: 'X', baseURL: 'http://127.0.0.1:9' }, deps).available(), true)
    assert.equal(createDeepSeekSearch({ ...base, apiKey: 'literal', baseURL: 'http://127.0.0.1:9' }, deps).available(), true)
    assert.equal(createDeepSeekSearch({ ...base, baseURL: 'http://127.0.0.1:9' }, deps).available(), false)
    assert.equal(createDeepSeekSearch({ ...base, apiKeyEnv: 'X', baseURL: 'not a url' }, deps).available(), false)
    assert.equal(createDeepSeekSearch({ ...base, apiKeyEnv: 'X', baseURL: 'ftp://127.0.0.1/x' }, deps).available(), false)
  })

  it('rejects an empty query before any request', async () => {
    const { provider } = providerFor(server)
    const error = await provider.search({ query: '  ' }, call()).catch((error) => error)
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.equal(server.requests.length, 0)
    await provider.close()
  })
})

describe('deepseek: filters reported as they held for the returned sources', () => {
  const server = useFixtureServer(FIXTURES)

  it('regression: allowed_domains [nodejs.org] with github.com sources is NOT honoured, the note counts them, and no source is dropped', async () => {
    server.reply('deepseek-allowed-domains-violated')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', allowedDomains: ['nodejs.org'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools[0].allowed_domains, ['nodejs.org'])
    assert.deepEqual(result.filters, [
      { filter: 'allowed_domains', honoured: false, note: 'sent to DeepSeek, but 2 of 5 sources are outside the allowed domains (github.com, notnodejs.org)' },
    ])
    assert.deepEqual(
      result.sources.map((source) => source.url),
      [
        'https://nodejs.org/en/about/previous-releases',
        'https://github.com/nodejs/Release',
        'https://Blog.NodeJS.org/release/v24.11.0',
        'https://notnodejs.org/lts',
        'https://nodejs.org/en/blog/release/v24.11.0',
      ],
      'every source is kept, as returned',
    )
    await provider.close()
  })

  it('allowed_domains is honoured when every source is on the domains: subdomains included, case-insensitive', async () => {
    server.reply('deepseek-allowed-domains-satisfied')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', allowedDomains: ['NodeJS.org'] }, call())
    assert.equal(result.sources.length, 3)
    assert.deepEqual(result.filters, [{ filter: 'allowed_domains', honoured: true, note: 'sent to DeepSeek; all 3 sources are on the allowed domains' }])
    await provider.close()
  })

  it('blocked_domains with a returned source on a blocked domain is NOT honoured, naming the host', async () => {
    server.reply('deepseek-allowed-domains-violated')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts', blockedDomains: ['GitHub.com'] }, call())
    // sent normalised, as the one domain matcher writes the entry
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools[0].blocked_domains, ['github.com'])
    assert.deepEqual(result.filters, [{ filter: 'blocked_domains', honoured: false, note: 'sent to DeepSeek, but 1 of 5 sources is on the blocked domains (github.com)' }])
    assert.equal(result.sources.length, 5)
    await provider.close()
  })

  it('with no sources a sent domain filter holds (nothing is outside it) and the note says nothing was checked', async () => {
    server.reply('deepseek-zero-results')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'qwxzv', allowedDomains: ['nodejs.org'] }, call())
    assert.deepEqual(result.filters, [{ filter: 'allowed_domains', honoured: true, note: 'sent to DeepSeek; no sources came back to check it against' }])
    await provider.close()
  })

  it('user_location alone: sent, reported NOT honoured because DeepSeek does not document applying it', async () => {
    server.reply('deepseek-allowed-domains-satisfied')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q', userLocation: { country: 'DE' } }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools[0].user_location, { type: 'approximate', country: 'DE' })
    assert.equal(result.filters.length, 1)
    assert.equal(result.filters[0]!.filter, 'user_location')
    assert.equal(result.filters[0]!.honoured, false)
    assert.match(result.filters[0]!.note!, /^sent to DeepSeek, but its documentation does not say it applies user_location/)
    await provider.close()
  })
})

