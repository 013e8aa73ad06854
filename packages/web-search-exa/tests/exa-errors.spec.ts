import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('exa: HTTP errors and retries', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'exa-429', multiResult: 'exa-multi-result', proxyHtml200: 'exa-200-proxy-html', truncated: 'exa-truncated' },
    bodyPrefix: '{"requestId":"r","results":[',
  }

  const cases = [
    { fixture: 'exa-401', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'refused the API key (HTTP 401, INVALID_API_KEY): Invalid API key', retried: false },
    { fixture: 'exa-403-html', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: "the body is not Exa's JSON error, text/html", retried: false },
    { fixture: 'exa-403-content', code: 'WEB_PROVIDER_ERROR', status: 403, quote: 'blocked by content moderation', retried: false },
    { fixture: 'exa-402', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 402, quote: 'reports the credits used up (HTTP 402, NO_MORE_CREDITS): You have run out of credits.', retried: false },
    { fixture: 'exa-402-budget', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 402, quote: "the key's spending budget used up", retried: false },
    { fixture: 'exa-400', code: 'WEB_PROVIDER_ERROR', status: 400, quote: 'numResults must be at most 100', retried: false },
    { fixture: 'exa-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'failed on its side (HTTP 500, INTERNAL_ERROR): Internal server error', retried: true },
    { fixture: 'exa-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: "not Exa's JSON error, text/html", retried: true },
  ] as const

  itMapsErrorAnswers(subject, cases)

  it('401 names where the key came from, never the key; the tag and requestId go in the details', async () => {
    server.reply('exa-401')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.message, 'Exa refused the API key (HTTP 401, INVALID_API_KEY): Invalid API key (the key used: DSH_TEST_EXA_UNUSED from the credentials store)')
    assert.equal(error.details.providerCode, 'INVALID_API_KEY')
    assert.equal(error.details.requestId, 'r-401')
    await provider.close()
  })

  it('429: retryAfterMs from retry-after, retried at most twice, the same body each time', async () => {
    server.reply('exa-429', 'exa-429', 'exa-429')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.attempts, 3)
    assert.deepEqual(waits, [1000, 1000])
    assert.equal(server.requests[2]!.body, server.requests[0]!.body)
    await provider.close()
  })

  it('429 without retry-after: the kit backoff (500 ms, then 1 s)', async () => {
    server.reply({ status: 429, body: { error: 'Rate limit exceeded' } }, { status: 429, body: { error: 'Rate limit exceeded' } }, 'exa-multi-result')
    const { provider, waits } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(result.sources.length, 4)
    assert.deepEqual(waits, [500, 1000])
    await provider.close()
  })

  it('402 (credits) is the quota after one request, saying what to do', async () => {
    server.reply('exa-402', 'exa-multi-result')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.equal(error.retryable, false)
    assert.match(error.message, /top up at dashboard\.exa\.ai/)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location is never requested', async () => {
    server.reply('exa-redirect')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.match(error.message, /redirect to https:\/\/elsewhere\.example\/search/)
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('an error that echoes the key quotes it scrubbed, in the message and the details', async () => {
    server.reply({ status: 400, body: { error: `Bad key ${TEST_KEY} (ends ${TEST_KEY.slice(-12)})`, requestId: TEST_KEY } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.match(error.message, /Bad key \[redacted\]/)
    assert.ok(!JSON.stringify(error.toJSON()).includes(TEST_KEY.slice(-12)))
    await provider.close()
  })

  it("an error body under a 200 (a gateway) is the provider's error, not a format problem", async () => {
    server.reply({ status: 200, body: { error: 'Gateway says no.' } })
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
