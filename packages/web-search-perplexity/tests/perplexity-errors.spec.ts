import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('perplexity: HTTP errors and retries', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'perplexity-429', multiResult: 'perplexity-multi-result', proxyHtml200: 'perplexity-200-proxy-html', truncated: 'perplexity-truncated' },
    bodyPrefix: '{"id":"q","results":[',
  }

  const cases = [
    { fixture: 'perplexity-401', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'refused the API key (HTTP 401, authentication_error): Invalid API key provided.', retried: false },
    { fixture: 'perplexity-403-html', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: 'the CDN or a proxy in front of the API may have answered', retried: false },
    { fixture: 'perplexity-402', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 402, quote: 'Insufficient credits. Add credits to continue.', retried: false },
    { fixture: 'perplexity-429-quota', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 429, quote: 'You exceeded your current quota.', retried: false },
    { fixture: 'perplexity-400', code: 'WEB_PROVIDER_ERROR', status: 400, quote: 'Invalid value for search_recency_filter.', retried: false },
    { fixture: 'perplexity-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'failed on its side (HTTP 500, api_error): Internal server error', retried: true },
    { fixture: 'perplexity-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: "not Perplexity's JSON error, text/html", retried: true },
  ] as const

  itMapsErrorAnswers(subject, cases)

  it('401 names where the key came from, never the key', async () => {
    server.reply('perplexity-401')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(
      error.message,
      'Perplexity refused the API key (HTTP 401, authentication_error): Invalid API key provided. (the key used: DSH_TEST_PERPLEXITY_UNUSED from the credentials store)',
    )
    assert.equal(error.details.providerCode, 'authentication_error')
    await provider.close()
  })

  it('429: retryAfterMs from retry-after, retried at most twice, the same body each time', async () => {
    server.reply('perplexity-429', 'perplexity-429', 'perplexity-429')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.attempts, 3)
    assert.deepEqual(waits, [1000, 1000])
    assert.equal(server.requests[2]!.body, server.requests[0]!.body)
    await provider.close()
  })

  it('429 with retry-after-ms: that wait, in milliseconds', async () => {
    server.reply({ status: 429, headers: { 'retry-after-ms': '250' }, body: { error: { message: 'Rate limit exceeded', type: 'rate_limit_error' } } }, 'perplexity-multi-result')
    const { provider, waits } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(result.sources.length, 4)
    assert.deepEqual(waits, [250])
    await provider.close()
  })

  it('a 429 typed insufficient_quota is the quota after one request, never retried', async () => {
    server.reply('perplexity-429-quota', 'perplexity-multi-result')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.equal(error.retryable, false)
    assert.match(error.message, /add credits/)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location is never requested', async () => {
    server.reply('perplexity-redirect')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.match(error.message, /redirect to https:\/\/elsewhere\.example\/search/)
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('an error that echoes the key quotes it scrubbed, in the message and the details', async () => {
    server.reply({ status: 400, body: { error: { message: `Bad key ${TEST_KEY} (ends ${TEST_KEY.slice(-12)})`, type: TEST_KEY } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.match(error.message, /Bad key \[redacted\]/)
    assert.ok(!JSON.stringify(error.toJSON()).includes(TEST_KEY.slice(-12)))
    await provider.close()
  })

  it("an error body under a 200 (a gateway) is the provider's error, not a format problem", async () => {
    server.reply({ status: 200, body: { error: { message: 'Gateway says no.', type: 'api_error' } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.match(error.message, /Gateway says no\./)
    await provider.close()
  })

  itRetriesWithinTheDeadline(subject)
  itRefusesUnreadableAnswers(subject)
  itAbortsWhileWaiting(subject)
})
