import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('openai: HTTP errors and retries', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'openai-429', multiResult: 'openai-multi-result', proxyHtml200: 'openai-200-proxy-html', truncated: 'openai-truncated' },
    bodyPrefix: '{"id":"resp_1","object":"response","output":[',
  }

  const cases = [
    { fixture: 'openai-401', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'Incorrect API key provided', retried: false },
    { fixture: 'openai-403', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: 'Country, region, or territory not supported', retried: false },
    { fixture: 'openai-429-quota', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 429, quote: 'You exceeded your current quota', retried: false },
    { fixture: 'openai-400', code: 'WEB_PROVIDER_ERROR', status: 400, quote: "The requested model 'gpt-nope' does not exist.", retried: false },
    { fixture: 'openai-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'The server had an error', retried: true },
    { fixture: 'openai-503', code: 'WEB_PROVIDER_ERROR', status: 503, quote: 'currently overloaded', retried: true },
    { fixture: 'openai-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: 'not JSON, text/html', retried: true },
  ] as const

  itMapsErrorAnswers(subject, cases)

  it('429 rate_limit_exceeded: WEB_PROVIDER_RATE_LIMITED with retryAfterMs, retried at most twice honouring retry-after', async () => {
    server.reply('openai-429', 'openai-429', 'openai-429')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.providerCode, 'rate_limit_exceeded')
    assert.equal(error.details.requestId, 'req_err_1')
    assert.equal(server.requests.length, 3)
    assert.deepEqual(waits, [1000, 1000])
    await provider.close()
  })

  itRetriesWithinTheDeadline(subject)

  it('a retry-after beyond the deadline is not waited for', async () => {
    server.reply({ status: 429, headers: { 'retry-after': '600' }, body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } } })
    const { provider, waits } = providerFor(server, { timeoutMs: 10_000 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 600_000)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  itRefusesUnreadableAnswers(subject)

  it('an error envelope under HTTP 200 is classified by its code and quoted', async () => {
    server.reply({ status: 200, body: { error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.equal(error.retryable, false)
    assert.match(error.message, /You exceeded your current quota\./)
    await provider.close()
  })

  itAbortsWhileWaiting(subject)

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location is never requested', async () => {
    server.reply({ status: 302, headers: { location: `${server.url}/stolen` }, rawBody: '' })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.deepEqual(server.requests.map((request) => request.path), ['/v1/responses'])
    server.reset()
    server.reply('openai-redirect')
    const again = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(again.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('scrubs the key from a provider message that echoes it', async () => {
    server.reply({ status: 401, body: { error: { message: `Incorrect API key provided: ${TEST_KEY}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.ok(!error.message.includes(TEST_KEY))
    assert.match(error.message, /\[redacted\]/)
    assert.ok(error.message.endsWith('(the key used: DSH_TEST_OPENAI_UNUSED from the credentials store)'), error.message)
    await provider.close()
  })
})
