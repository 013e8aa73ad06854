import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('tavily: HTTP errors and retries', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'tavily-429', multiResult: 'tavily-multi-result', proxyHtml200: 'tavily-200-proxy-html', truncated: 'tavily-truncated' },
    bodyPrefix: '{"query":"q","results":[',
  }

  const cases = [
    { fixture: 'tavily-401', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'Unauthorized: missing or invalid API key.', retried: false },
    { fixture: 'tavily-403-html', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: "the body is not Tavily's JSON error, text/html", retried: false },
    { fixture: 'tavily-432', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 432, quote: "exceeds your plan's set usage limit", retried: false },
    { fixture: 'tavily-433', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 433, quote: 'raise the limit on the Tavily dashboard', retried: false },
    { fixture: 'tavily-400', code: 'WEB_PROVIDER_ERROR', status: 400, quote: "Invalid topic. Must be 'general', 'news' or 'finance'.", retried: false },
    { fixture: 'tavily-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'failed on its side (HTTP 500): Internal Server Error', retried: true },
    { fixture: 'tavily-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: 'not Tavily\'s JSON error, text/html', retried: true },
  ] as const

  itMapsErrorAnswers(subject, cases)

  it('401 names where the key came from, never the key', async () => {
    server.reply('tavily-401')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(
      error.message,
      'Tavily refused the API key (HTTP 401): Unauthorized: missing or invalid API key. (the key used: DSH_TEST_TAVILY_UNUSED from the credentials store)',
    )
    await provider.close()
  })

  it('429: retryAfterMs from retry-after, retried at most twice, the same body each time', async () => {
    server.reply('tavily-429', 'tavily-429', 'tavily-429')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.attempts, 3)
    assert.deepEqual(waits, [1000, 1000])
    assert.equal(server.requests[2]!.body, server.requests[0]!.body)
    await provider.close()
  })

  it("429 with the keyless envelope: its retry_after_seconds is the wait when there is no retry-after header", async () => {
    server.reply({ status: 429, body: { error: { code: 'hourly_cap', message: 'Hourly cap reached.', retry_after_seconds: 3 } } }, 'tavily-multi-result')
    const { provider, waits } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(result.sources.length, 4)
    assert.deepEqual(waits, [3000])
    await provider.close()
  })

  it('432 (the plan) is the quota after one request, saying what to do', async () => {
    server.reply('tavily-432', 'tavily-multi-result')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.equal(error.retryable, false)
    assert.match(error.message, /upgrade the plan on the Tavily dashboard/)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location is never requested', async () => {
    server.reply('tavily-redirect')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(error.retryable, false)
    assert.match(error.message, /redirect to https:\/\/elsewhere\.example\/search/)
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('an error that echoes the key quotes it scrubbed, in the message and the details', async () => {
    server.reply({ status: 400, body: { detail: { error: `Bad key ${TEST_KEY} (ends ${TEST_KEY.slice(-12)})` } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.match(error.message, /Bad key \[redacted\]/)
    assert.ok(!JSON.stringify(error.toJSON()).includes(TEST_KEY.slice(-12)))
    await provider.close()
  })

  it('an error body under a 200 (a gateway) is the provider\'s error, not a format problem', async () => {
    server.reply({ status: 200, body: { detail: { error: 'Gateway says no.' } } })
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
