import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { parseBraveRateLimit } from '../src/brave-rate-limit.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('brave: HTTP errors and retries', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'brave-429-rate-limited', multiResult: 'brave-multi-result', proxyHtml200: 'brave-200-proxy-html', truncated: 'brave-truncated' },
    bodyPrefix: '{"type":"search","query":{"original":"q"},"web":{"type":"search","results":[',
  }

  const cases = [
    { fixture: 'brave-422-token-invalid', code: 'WEB_PROVIDER_AUTH_FAILED', status: 422, quote: 'The provided subscription token is invalid.', retried: false },
    { fixture: 'brave-401', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'the subscription token is missing or invalid', retried: false },
    { fixture: 'brave-403-html', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: 'a proxy or firewall in front of the API may have answered', retried: false },
    { fixture: 'brave-429-quota-limited', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 429, quote: 'Request quota limit exceeded for plan.', retried: false },
    { fixture: 'brave-429-month-exhausted', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 429, quote: 'the monthly quota of 2000 requests has none left and resets in 16.4 days', retried: false },
    { fixture: 'brave-422-validation', code: 'INVALID_ARGUMENT', status: 422, quote: "Unable to validate request parameter(s) (query.safesearch: Input should be 'off', 'moderate' or 'strict')", retried: false },
    { fixture: 'brave-400-option-not-in-plan', code: 'WEB_PROVIDER_ERROR', status: 400, quote: "refused an option the subscription's plan does not include (HTTP 400, OPTION_NOT_IN_PLAN): The option is not subscribed in the plan.", retried: false },
    { fixture: 'brave-404', code: 'WEB_PROVIDER_ERROR', status: 404, quote: 'No subscription found.', retried: false },
    { fixture: 'brave-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'An unexpected error occurred.', retried: true },
    { fixture: 'brave-503', code: 'WEB_PROVIDER_ERROR', status: 503, quote: 'temporarily unavailable', retried: true },
    { fixture: 'brave-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: 'not JSON, text/html', retried: true },
  ] as const

  itMapsErrorAnswers(subject, cases)

  it('422 SUBSCRIPTION_TOKEN_INVALID is classified by its code, not its status, and names where the key came from', async () => {
    server.reply('brave-422-token-invalid')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    assert.equal(error.details.providerCode, 'SUBSCRIPTION_TOKEN_INVALID')
    assert.equal(error.details.requestId, 'ade84851-a6f3-4cf9-8c76-1dc897718b0b')
    assert.equal(
      error.message,
      'Brave Search refused the subscription token (HTTP 422, SUBSCRIPTION_TOKEN_INVALID): The provided subscription token is invalid. (the key used: DSH_TEST_BRAVE_UNUSED from the credentials store)',
    )
    await provider.close()
  })

  it('429 RATE_LIMITED: retryAfterMs from the per-second X-RateLimit-Reset, retried at most twice', async () => {
    server.reply('brave-429-rate-limited', 'brave-429-rate-limited', 'brave-429-rate-limited')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.attempts, 3)
    assert.equal(error.retryable, true)
    assert.equal(error.message, 'Brave Search is rate limiting requests (HTTP 429, RATE_LIMITED): Request rate limit exceeded for plan.; the per-second limit of 1 resets in 1 s')
    assert.equal(server.requests.length, 3)
    assert.deepEqual(waits, [1000, 1000])
    assert.equal(server.requests[2]!.path, server.requests[0]!.path, 'the retry is the same request')
    await provider.close()
  })

  itRetriesWithinTheDeadline(subject)

  it('the monthly window exhausted under RATE_LIMITED is the quota: not retried, reset named in seconds', async () => {
    server.reply('brave-429-month-exhausted', 'brave-multi-result')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.equal(error.retryable, false)
    assert.equal(error.details.quotaResetSeconds, 1419704)
    assert.equal(error.details.retryAfterMs, undefined, 'nothing to wait for within a call')
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it('QUOTA_LIMITED with no rate-limit headers is still the quota', async () => {
    server.reply({ status: 429, body: { type: 'ErrorResponse', error: { code: 'QUOTA_LIMITED', detail: 'Request quota limit exceeded for plan.', status: 429 } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.equal(error.message, "Brave Search reports the plan's quota used up (HTTP 429, QUOTA_LIMITED): Request quota limit exceeded for plan.")
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('402 (never seen from Brave, but a payment status) is the quota', async () => {
    server.reply({ status: 402, body: { type: 'ErrorResponse', error: { detail: 'Payment required.' } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    await provider.close()
  })

  it('a 429 whose X-RateLimit-Reset ends after the deadline is not waited for', async () => {
    server.reply({ ...rateLimited(), headers: { 'x-ratelimit-policy': '1;w=1, 2000;w=2592000', 'x-ratelimit-remaining': '0, 15', 'x-ratelimit-reset': '120, 1419704' } })
    const { provider, waits } = providerFor(server, { timeoutMs: 10_000 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 120_000)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it('OPTION_NOT_IN_PLAN names the optional parameters this row sends', async () => {
    server.reply('brave-400-option-not-in-plan')
    const { provider } = providerFor(server, { extraSnippets: true, freshness: 'pw' })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.equal(error.retryable, false)
    assert.ok(error.message.endsWith('; this row sends freshness=pw, extra_snippets=true: remove the option from the row or change the plan'), error.message)
    await provider.close()
  })

  it('VALIDATION of a query over 400 characters says how long the query sent was, site: operators included', async () => {
    server.reply('brave-422-query-too-long')
    const { provider } = providerFor(server)
    const query = 'word '.repeat(78).trim()
    const error = await rejection(provider.search({ query, allowedDomains: ['nodejs.org'] }, call()))
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.equal(error.details.argument, 'query')
    assert.equal(
      error.message,
      "Brave Search rejected the request's parameters (HTTP 422, VALIDATION): Unable to validate request parameter(s) (query.q: String should have at most 400 characters); " +
        'Brave takes a query of at most 400 characters and 50 words, site: operators for domain filters included, and this one has 405 characters and 79 words',
    )
    await provider.close()
  })

  itRefusesUnreadableAnswers(subject)

  it('an error envelope under HTTP 200 is classified by its code and quoted', async () => {
    server.reply({ status: 200, body: { type: 'ErrorResponse', errors: [{ code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.', status: 422 }] } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    assert.match(error.message, /\(HTTP 200, SUBSCRIPTION_TOKEN_INVALID\): The provided subscription token is invalid\./)
    await provider.close()
  })

  itAbortsWhileWaiting(subject)

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location is never requested', async () => {
    server.reply('brave-redirect')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(server.requests.length, 1)
    assert.match(error.message, /redirect to https:\/\/elsewhere\.example\/res\/v1\/web\/search/)
    await provider.close()
  })

  it('scrubs the key from everything quoted: detail and validation messages', async () => {
    server.reply({
      status: 422,
      body: { type: 'ErrorResponse', error: { code: 'VALIDATION', detail: `Bad token ${TEST_KEY}`, meta: { errors: [{ loc: ['header', 'x-subscription-token'], msg: `value ${TEST_KEY} is malformed` }] } } },
    })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.ok(!JSON.stringify(error.toJSON()).includes(TEST_KEY))
    assert.equal(error.message, "Brave Search rejected the request's parameters (HTTP 422, VALIDATION): Bad token [redacted] (header.x-subscription-token: value [redacted] is malformed)")
    await provider.close()
  })

  it('quotes at most five validation messages and says how many more there were', async () => {
    const errors = Array.from({ length: 8 }, (_, index) => ({ loc: ['query', `p${index}`], msg: 'bad' }))
    server.reply({ status: 422, body: { type: 'ErrorResponse', error: { code: 'VALIDATION', detail: 'Invalid', meta: { errors } } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.match(error.message, /\(query\.p0: bad; query\.p1: bad; query\.p2: bad; query\.p3: bad; query\.p4: bad; and 3 more\)/)
    await provider.close()
  })
})

describe('brave: rate-limit headers', () => {
  it('reads the four headers as windows aligned by position', () => {
    const windows = parseBraveRateLimit({
      'x-ratelimit-limit': '1, 15000',
      'x-ratelimit-policy': '1;w=1, 15000;w=2592000',
      'x-ratelimit-remaining': '1, 1000',
      'x-ratelimit-reset': '1, 1419704',
    })
    assert.deepEqual(windows, [
      { index: 0, limit: 1, windowSeconds: 1, remaining: 1, resetSeconds: 1 },
      { index: 1, limit: 15000, windowSeconds: 2592000, remaining: 1000, resetSeconds: 1419704 },
    ])
    assert.deepEqual(parseBraveRateLimit({}), [])
    assert.deepEqual(parseBraveRateLimit({ 'x-ratelimit-reset': 'soon, 5' }), [{ index: 0 }, { index: 1, resetSeconds: 5 }])
  })
})

function rateLimited() {
  return { status: 429, body: { type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: 'Request rate limit exceeded for plan.', status: 429 } } }
}
