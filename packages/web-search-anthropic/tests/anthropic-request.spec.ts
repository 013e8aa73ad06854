import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { messagesEndpoint, searchInstruction } from 'dsh-provider-kit'
import { createAnthropicSearch, DEFAULT_ANTHROPIC_BASE_URL } from '../src/anthropic-search.js'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('anthropic: the request as sent', () => {
  const server = useFixtureServer(FIXTURES)

  it('posts to {base}/v1/messages with x-api-key, anthropic-version and the exact JSON body', async () => {
    server.reply('anthropic-multi-result')
    const { provider } = providerFor(server)
    await provider.search({ query: 'node lts' }, call())
    assert.equal(server.requests.length, 1)
    const [received] = server.requests
    assert.equal(received!.method, 'POST')
    assert.equal(received!.path, '/v1/messages')
    assert.equal(received!.headers['x-api-key'], TEST_KEY)
    assert.equal(received!.headers['anthropic-version'], '2023-06-01')
    assert.equal(received!.headers['content-type'], 'application/json')
    assert.equal(received!.headers.authorization, undefined, 'the key travels once, in x-api-key')
    assert.equal(received!.headers['anthropic-beta'], undefined, 'the web search tool is not a beta')
    const expected = {
      model: 'claude-haiku-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: searchInstruction('node lts') }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
    }
    assert.equal(received!.body, JSON.stringify(expected))
    await provider.close()
  })

  it('sends the configured tool version, model and anthropic-version', async () => {
    server.reply('anthropic-multi-result')
    const { provider } = providerFor(server, { toolVersion: 'web_search_20260209', model: 'claude-sonnet-4-6', apiVersion: '2099-01-01', maxUses: 1 })
    await provider.search({ query: 'q' }, call())
    const body = JSON.parse(server.requests[0]!.body)
    assert.equal(server.requests[0]!.headers['anthropic-version'], '2099-01-01')
    assert.equal(body.model, 'claude-sonnet-4-6')
    assert.deepEqual(body.tools, [{ type: 'web_search_20260209', name: 'web_search', max_uses: 1 }])
    await provider.close()
  })

  it('sends allowed_domains and user_location; the domain filter is judged by the sources, user_location is documented', async () => {
    server.reply('anthropic-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search(
      { query: 'q', allowedDomains: ['nodejs.org', ' endoflife.date ', 'nodejs.org'], userLocation: { city: 'Berlin', country: 'DE', timezone: 'Europe/Berlin' } },
      call(),
    )
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools, [
      {
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: 3,
        allowed_domains: ['nodejs.org', 'endoflife.date'],
        user_location: { type: 'approximate', city: 'Berlin', country: 'DE', timezone: 'Europe/Berlin' },
      },
    ])
    assert.deepEqual(result.filters, [
      { filter: 'allowed_domains', honoured: false, note: 'sent to Anthropic, but 1 of 4 sources is outside the allowed domains (github.com)' },
      { filter: 'user_location', honoured: true, note: 'sent to Anthropic, whose web search tool documentation says it localises the search by user_location; the results cannot show it' },
    ])
    await provider.close()
  })

  it('sends blocked_domains alone, never both lists; honoured when no source is on them', async () => {
    server.reply('anthropic-allowed-domains-satisfied', 'anthropic-multi-result')
    const { provider } = providerFor(server)
    const alone = await provider.search({ query: 'q', blockedDomains: ['Pinterest.com'] }, call())
    assert.deepEqual(JSON.parse(server.requests[0]!.body).tools[0].blocked_domains, ['pinterest.com'])
    assert.deepEqual(alone.filters, [{ filter: 'blocked_domains', honoured: true, note: 'sent to Anthropic; none of the 3 sources is on the blocked domains' }])
    const both = await provider.search({ query: 'q', allowedDomains: ['a.org'], blockedDomains: ['b.org'] }, call())
    const tool = JSON.parse(server.requests[1]!.body).tools[0]
    assert.deepEqual(tool.allowed_domains, ['a.org'])
    assert.equal(tool.blocked_domains, undefined)
    assert.equal(both.filters.find((filter) => filter.filter === 'blocked_domains')!.honoured, false)
    await provider.close()
  })

  it('recency: nothing is sent for it (the tool has no date parameter) and it is reported not honoured', async () => {
    server.reply('anthropic-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node release', recency: 'week' }, call())
    const body = JSON.parse(server.requests[0]!.body)
    assert.deepEqual(body.tools, [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }])
    assert.deepEqual(result.filters, [
      {
        filter: 'recency',
        honoured: false,
        note: 'not sent: the Anthropic web search tool (web_search_20250305) has no date or recency parameter, so sources older than a week may be among them',
      },
    ])
    assert.equal(result.sources.length, 4, 'no source is dropped for it')
    await provider.close()
  })

  it('a recency that is not day, week, month or year is INVALID_ARGUMENT before any request', async () => {
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q', recency: 'fortnight' as never }, call()))
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.match(error.message, /recency must be one of day, week, month, year/)
    assert.equal(server.requests.length, 0)
    await provider.close()
  })

  it('reads ANTHROPIC_SEARCH_BASE_URL when the row sets no baseURL, never ANTHROPIC_BASE_URL; a base ending in /v1 gets /messages', async () => {
    server.reply('anthropic-multi-result')
    const { provider } = providerFor(
      server,
      { baseURL: undefined },
      { env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/sdk-base', ANTHROPIC_SEARCH_BASE_URL: `${server.url}/gateway/v1` } },
    )
    await provider.search({ query: 'q' }, call())
    assert.equal(server.requests[0]!.path, '/gateway/v1/messages')
    assert.equal(messagesEndpoint(DEFAULT_ANTHROPIC_BASE_URL).href, 'https://api.anthropic.com/v1/messages')
    await provider.close()
  })

  it('unavailableReason() names the setting to fix', () => {
    const deps = { resolveCredential: async () => ({ value: 'k', source: 'config' as const }), env: {} }
    const base = { model: 'm', maxTokens: 1, maxUses: 1, toolVersion: 'web_search_20250305' as const, apiVersion: 'v', timeoutMs: 1000 }
    assert.equal(createAnthropicSearch({ ...base, apiKeyEnv: 'X' }, deps).unavailableReason?.(), undefined, 'the default base URL builds')
    assert.equal(
      createAnthropicSearch({ ...base, apiKeyEnv: 'X', baseURL: 'not a url' }, deps).unavailableReason?.(),
      'baseURL "not a url" is not a valid URL; set baseURL or ANTHROPIC_SEARCH_BASE_URL',
    )
    assert.equal(createAnthropicSearch({ ...base, baseURL: 'http://127.0.0.1:9' }, deps).available(), false)
  })
})
