import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FixtureServer, useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('deepseek: HTTP errors and retries', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'deepseek-429', multiResult: 'deepseek-multi-result', proxyHtml200: 'deepseek-200-proxy-html', truncated: 'deepseek-truncated' },
    bodyPrefix: '{"id":"msg_1","type":"message","content":[',
  }

  const cases = [
    { fixture: 'deepseek-401', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'Authentication Fails', retried: false },
    { fixture: 'deepseek-403', code: 'WEB_PROVIDER_AUTH_FAILED', status: 403, quote: 'does not have permission', retried: false },
    { fixture: 'deepseek-402', code: 'WEB_PROVIDER_QUOTA_EXHAUSTED', status: 402, quote: 'Insufficient Balance', retried: false },
    { fixture: 'deepseek-400', code: 'WEB_PROVIDER_ERROR', status: 400, quote: 'Model Not Exist', retried: false },
    { fixture: 'deepseek-500', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'Internal server error', retried: true },
    { fixture: 'deepseek-529', code: 'WEB_PROVIDER_ERROR', status: 529, quote: 'Overloaded', retried: true },
    { fixture: 'deepseek-503-openai-style', code: 'WEB_PROVIDER_ERROR', status: 503, quote: 'Server overloaded, please retry shortly.', retried: true },
    { fixture: 'deepseek-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: 'not JSON, text/html', retried: true },
  ] as const

  itMapsErrorAnswers(subject, cases)

  it('429: WEB_PROVIDER_RATE_LIMITED with retryAfterMs, retried at most twice', async () => {
    server.reply('deepseek-429', 'deepseek-429', 'deepseek-429')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.attempts, 3)
    assert.equal(error.retryable, true)
    assert.match(error.message, /Rate limit reached/)
    assert.equal(server.requests.length, 3)
    assert.deepEqual(waits, [1000, 1000], 'retry-after is honoured')
    await provider.close()
  })

  itRetriesWithinTheDeadline(subject)

  it('a retry-after beyond the deadline is not waited for: the 429 comes back at once with retryAfterMs', async () => {
    server.reply('deepseek-429-long')
    const { provider, waits } = providerFor(server, { timeoutMs: 10_000 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.retryAfterMs, 120_000)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it('honours retry-after-ms and an HTTP-date retry-after', async () => {
    server.reply(
      { status: 429, headers: { 'retry-after-ms': '250' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } },
      { status: 529, headers: { 'retry-after': new Date(Date.now() + 3_000).toUTCString() }, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      'deepseek-multi-result',
    )
    const { provider, waits } = providerFor(server)
    await provider.search({ query: 'q' }, call())
    assert.equal(waits[0], 250)
    assert.ok(waits[1]! > 0 && waits[1]! <= 3_000, `HTTP date gives a wait within 3s, got ${waits[1]}`)
    await provider.close()
  })

  it('maxRetries: 0 sends one request only', async () => {
    server.reply('deepseek-500')
    const { provider } = providerFor(server, { maxRetries: 0 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  itRefusesUnreadableAnswers(subject)

  it('a JSON object without content is WEB_PROVIDER_BAD_RESPONSE', async () => {
    server.reply({ status: 200, body: { id: 'x', type: 'message' } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    await provider.close()
  })

  it('an error envelope under HTTP 200 is classified by its type and quoted, not called a format problem', async () => {
    server.reply({ status: 200, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded, try later' } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.equal(error.retryable, true)
    assert.equal(error.details.providerCode, 'overloaded_error')
    assert.match(error.message, /Overloaded, try later/)
    await provider.close()
  })

  itAbortsWhileWaiting(subject)

  it('refuses a redirect: WEB_REDIRECT_BLOCKED, the Location is never requested', async () => {
    server.reply({ status: 307, headers: { location: `${server.url}/stolen?key=1` }, rawBody: 'moved' })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(error.retryable, false)
    assert.deepEqual(server.requests.map((request) => request.path), ['/anthropic/v1/messages'])
    assert.ok(!error.message.includes('key=1'), 'the Location is quoted without its query')
    await provider.close()
  })

  it('refuses a redirect to another host (fixture deepseek-redirect)', async () => {
    server.reply('deepseek-redirect')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('scrubs the key from a provider message that echoes it', async () => {
    server.reply({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: `Incorrect API key provided: ${TEST_KEY}.` } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    assert.ok(!error.message.includes(TEST_KEY))
    assert.match(error.message, /Incorrect API key provided: \[redacted\]/)
    assert.ok(error.message.endsWith('(the key used: DSH_TEST_DEEPSEEK_UNUSED from the credentials store)'), error.message)
    await provider.close()
  })

  it('a connection refused is WEB_PROVIDER_ERROR naming the endpoint', async () => {
    const closed = await FixtureServer.start()
    const url = closed.url
    await closed.close()
    const { provider } = providerFor(server, { baseURL: `${url}/anthropic` })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.match(error.message, /could not be reached/)
    await provider.close()
  })
})
