import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('gemini: HTTP errors and retries', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'gemini-429', multiResult: 'gemini-multi-result', proxyHtml200: 'gemini-200-proxy-html', truncated: 'gemini-truncated' },
    bodyPrefix: '{"candidates":[{"content":{"role":"model","parts":[',
  }

  itMapsErrorAnswers(subject, [
    { fixture: 'gemini-400-key', code: 'WEB_PROVIDER_AUTH_FAILED', status: 400, quote: 'API key not valid', retried: false },
    { fixture: 'gemini-403', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: 'unregistered callers', retried: false },
    { fixture: 'gemini-429-daily', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 429, quote: 'GenerateRequestsPerDayPerProjectPerModel', retried: false },
    { fixture: 'gemini-400', code: 'WEB_PROVIDER_ERROR', status: 400, quote: 'Search Grounding is not supported.', retried: false },
    { fixture: 'gemini-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'An internal error has occurred', retried: true },
    { fixture: 'gemini-503', code: 'WEB_PROVIDER_ERROR', status: 503, quote: 'The model is overloaded', retried: true },
    { fixture: 'gemini-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: 'not JSON, text/html', retried: true },
  ])

  it('429 RESOURCE_EXHAUSTED per minute: WEB_PROVIDER_RATE_LIMITED waiting RetryInfo.retryDelay, at most twice', async () => {
    server.reply('gemini-429', 'gemini-429', 'gemini-429')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.providerCode, 'RESOURCE_EXHAUSTED')
    assert.equal(error.details.attempts, 3)
    assert.match(error.message, /^Gemini is rate limiting requests \(HTTP 429 RESOURCE_EXHAUSTED\): You exceeded your current quota/)
    assert.deepEqual(waits, [1000, 1000])
    await provider.close()
  })

  it('retryDelay with fractions of a second, and retry-after when there is no RetryInfo', async () => {
    const limited = (details: unknown[], headers: Record<string, string> = {}) => ({ status: 429, headers, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'slow down', details } } })
    server.reply(limited([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.25s' }]), limited([], { 'retry-after': '2' }), 'gemini-multi-result')
    const { provider, waits } = providerFor(server)
    await provider.search({ query: 'q' }, call())
    assert.deepEqual(waits, [250, 2000])
    await provider.close()
  })

  it('the daily quota is not retried even though Google sends a retryDelay', async () => {
    server.reply('gemini-429-daily', 'gemini-multi-result')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.equal(error.retryable, false)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  itRetriesWithinTheDeadline(subject)
  itRefusesUnreadableAnswers(subject)
  itAbortsWhileWaiting(subject)

  it('an error envelope under HTTP 200 is classified by its code and quoted', async () => {
    server.reply({ status: 200, body: { error: { code: 503, status: 'UNAVAILABLE', message: 'The model is overloaded.' } } })
    const { provider } = providerFor(server, { maxRetries: 0 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.equal(error.details.status, 503)
    assert.equal(error.retryable, true)
    assert.match(error.message, /The model is overloaded/)
    await provider.close()
  })

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location never requested', async () => {
    server.reply('gemini-redirect')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(server.requests.length, 1)
    assert.ok(!error.message.includes('steal=1'))
    await provider.close()
  })

  it('scrubs the key from a message that echoes it and names where it came from', async () => {
    server.reply({ status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: `API key not valid: ${TEST_KEY}`, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    assert.equal(error.details.providerCode, 'API_KEY_INVALID')
    assert.ok(!JSON.stringify(error.toJSON()).includes(TEST_KEY))
    assert.ok(error.message.endsWith('(the key used: DSH_TEST_GEMINI_UNUSED from the credentials store)'), error.message)
    await provider.close()
  })
})
