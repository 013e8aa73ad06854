import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('anthropic: HTTP errors and retries', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'anthropic-429', multiResult: 'anthropic-multi-result', proxyHtml200: 'anthropic-200-proxy-html', truncated: 'anthropic-truncated' },
    bodyPrefix: '{"id":"msg_1","type":"message","content":[',
  }

  itMapsErrorAnswers(subject, [
    { fixture: 'anthropic-401', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'invalid x-api-key', retried: false },
    { fixture: 'anthropic-403', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: 'does not have permission', retried: false },
    { fixture: 'anthropic-402', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 402, quote: 'outstanding balance', retried: false },
    { fixture: 'anthropic-400-credit', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 400, quote: 'Your credit balance is too low', retried: false },
    { fixture: 'anthropic-400', code: 'WEB_PROVIDER_ERROR', status: 400, quote: 'does not match any of the expected tags', retried: false },
    { fixture: 'anthropic-413', code: 'WEB_PROVIDER_ERROR', status: 413, quote: 'maximum allowed number of bytes', retried: false },
    { fixture: 'anthropic-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'Internal server error', retried: true },
    { fixture: 'anthropic-529', code: 'WEB_PROVIDER_ERROR', status: 529, quote: 'Overloaded', retried: true },
    { fixture: 'anthropic-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: 'not JSON, text/html', retried: true },
  ])

  it('429 rate_limit_error: WEB_PROVIDER_RATE_LIMITED, retry-after honoured (the anthropic-ratelimit-* headers are not a wait), at most twice', async () => {
    server.reply('anthropic-429', 'anthropic-429', 'anthropic-429')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.attempts, 3)
    assert.equal(error.details.providerCode, 'rate_limit_error')
    assert.match(error.message, /^Anthropic is rate limiting requests \(HTTP 429\): This request would exceed the rate limit/)
    assert.deepEqual(waits, [1000, 1000])
    await provider.close()
  })

  it('a retry-after past the deadline is not waited for', async () => {
    server.reply('anthropic-429-long')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 120_000)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  itRetriesWithinTheDeadline(subject)
  itRefusesUnreadableAnswers(subject)
  itAbortsWhileWaiting(subject)

  it('an overloaded_error envelope under HTTP 200 is classified by its type (529), retryable', async () => {
    server.reply({ status: 200, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } })
    const { provider } = providerFor(server, { maxRetries: 0 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.equal(error.details.status, 529)
    assert.equal(error.retryable, true)
    await provider.close()
  })

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location never requested, quoted without its query', async () => {
    server.reply('anthropic-redirect')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(error.retryable, false)
    assert.equal(server.requests.length, 1)
    assert.ok(!error.message.includes('steal=1'))
    await provider.close()
  })

  it('scrubs the key from a message that echoes it, and names where the key came from', async () => {
    server.reply({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${TEST_KEY}` } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    assert.ok(!JSON.stringify(error.toJSON()).includes(TEST_KEY))
    assert.match(error.message, /invalid x-api-key \[redacted\]/)
    assert.ok(error.message.endsWith('(the key used: DSH_TEST_ANTHROPIC_UNUSED from the credentials store)'), error.message)
    await provider.close()
  })
})
