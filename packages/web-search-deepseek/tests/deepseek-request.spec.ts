import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createDeepSeekSearch, DEFAULT_DEEPSEEK_BASE_URL } from '../src/deepseek-search.js'
import { deepSeekMessagesEndpoint, searchInstruction } from '../src/to-deepseek-request.js'
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

  it('sends allowed_domains and user_location when the request carries them, and reports them as best effort', async () => {
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
    assert.deepEqual(
      result.filters.map((filter) => [filter.filter, filter.honoured]),
      [['allowed_domains', true], ['user_location', true]],
    )
    await provider.close()
  })

  it('sends blocked_domains alone, and never both lists (blocked is reported as not sent)', async () => {
    server.reply('deepseek-multi-result', 'deepseek-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: 'q', blockedDomains: ['pinterest.com'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools[0].blocked_domains, ['pinterest.com'])
    const both = await provider.search({ query: 'q', allowedDomains: ['a.org'], blockedDomains: ['b.org'] }, call())
    const tool = JSON.parse(server.requests[1]!.body).tools[0]
    assert.deepEqual(tool.allowed_domains, ['a.org'])
    assert.equal(tool.blocked_domains, undefined)
    assert.deepEqual(both.filters.find((filter) => filter.filter === 'blocked_domains')?.honoured, false)
    await provider.close()
  })

  it('appends only /messages to a base that already ends in /v1', async () => {
    server.reply('deepseek-multi-result')
    const { provider } = providerFor(server, { baseURL: `${server.url}/anthropic/v1/` })
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/anthropic/v1/messages')
    assert.equal(deepSeekMessagesEndpoint('https://api.deepseek.com/anthropic').href, 'https://api.deepseek.com/anthropic/v1/messages')
    assert.equal(deepSeekMessagesEndpoint('https://gw.example/anthropic/v1').href, 'https://gw.example/anthropic/v1/messages')
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
