import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { FixtureServer, useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itAbortsWhileWaiting, itMapsErrorAnswers, itRefusesUnreadableAnswers, itRetriesWithinTheDeadline, type HttpSubject } from '../../../tests/support/provider-http-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY, TEST_PASSWORD } from './helpers.js'

describe('searxng: HTTP errors, each with the fix in its message', () => {
  const server = useFixtureServer(FIXTURES)
  const subject: HttpSubject = {
    server,
    providerFor,
    testKey: TEST_KEY,
    fixtures: { rateLimited: 'searxng-429-retry-after', multiResult: 'searxng-multi-result', proxyHtml200: 'searxng-200-html', truncated: 'searxng-truncated' },
    bodyPrefix: '{"query":"q","results":[',
  }

  const cases = [
    { fixture: 'searxng-403-json-disabled', code: 'WEB_PROVIDER_ERROR', status: 403, quote: "enable `json` in `search.formats` of the instance's settings.yml", retried: false },
    { fixture: 'searxng-429-limiter', code: 'WEB_PROVIDER_RATE_LIMITED', status: 429, quote: "the instance's limiter refused the request (HTTP 429: Too Many Requests); set `limiter: false`", retried: false },
    { fixture: 'searxng-429-blocklist', code: 'WEB_PROVIDER_RATE_LIMITED', status: 429, quote: 'IP is on BLOCKLIST - bad actor', retried: false },
    { fixture: 'searxng-400-invalid-parameter', code: 'INVALID_ARGUMENT', status: 400, quote: 'Invalid value "yesterday" for parameter time_range', retried: false },
    { fixture: 'searxng-401-basic-auth', code: 'WEB_PROVIDER_AUTH_FAILED', status: 401, quote: 'refused DSH_TEST_SEARXNG_UNUSED from the credentials store (HTTP 401, asking for Basic authentication)', retried: false },
    { fixture: 'searxng-404', code: 'WEB_PROVIDER_ERROR', status: 404, quote: 'check baseURL', retried: false },
    { fixture: 'searxng-500-search-error', code: 'WEB_PROVIDER_ERROR', status: 500, quote: 'failed on its side (HTTP 500): search error', retried: true },
    { fixture: 'searxng-502-proxy-html', code: 'WEB_PROVIDER_ERROR', status: 502, quote: 'not JSON, text/html', retried: true },
  ] as const

  itMapsErrorAnswers(subject, cases)

  it('403 with JSON disabled: the whole message, with the fix, and the providerCode', async () => {
    server.reply('searxng-403-json-disabled')
    const { provider } = providerFor(server, { authEnv: undefined })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(
      error.message,
      "SearXNG answered HTTP 403 to format=json (the body is not JSON, text/html): the instance does not serve JSON; enable `json` in `search.formats` of the instance's settings.yml (e.g. `formats: [html, json]`) and restart it.",
    )
    assert.equal(error.details.providerCode, 'json_format_disabled')
    await provider.close()
  })

  it('429 from the limiter (no Retry-After): not retried, the limiter fix in full', async () => {
    server.reply('searxng-429-limiter', 'searxng-multi-result')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(
      error.message,
      "SearXNG: the instance's limiter refused the request (HTTP 429: Too Many Requests); set `limiter: false` in the `server` section of the instance's settings.yml, " +
        "or add this host's address to `pass_ip` under `[botdetection.ip_lists]` in its limiter.toml. It sends no Retry-After, so the request is not retried.",
    )
    assert.equal(error.details.providerCode, 'limiter')
    assert.equal(error.details.retryAfterMs, undefined)
    assert.equal(server.requests.length, 1)
    assert.deepEqual(waits, [])
    await provider.close()
  })

  it('a redirect to the front page is the limiter: the same fix, the Location never requested', async () => {
    server.reply('searxng-302-limiter')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.details.status, 302)
    assert.equal(error.details.providerCode, 'limiter')
    assert.equal(error.retryable, false)
    assert.match(error.message, new RegExp(`^SearXNG: the instance's limiter refused the request \\(HTTP 302, a redirect to its front page ${server.url}/\\); set \`limiter: false\``))
    assert.equal(server.requests.length, 1)
    server.reset()
    server.reply({ status: 302, headers: { location: `${server.url}/searxng/` }, rawBody: '' })
    const prefixed = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(prefixed.details.providerCode, 'limiter', "the instance's own root under a path prefix")
    await provider.close()
  })

  it('a redirect elsewhere on the instance is refused as any redirect (not called the limiter)', async () => {
    server.reply({ status: 302, headers: { location: '/login?next=/search' }, rawBody: '' })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.match(error.message, /redirects are never followed/)
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it("an external bang in the query (SearXNG redirects even for format=json): WEB_REDIRECT_BLOCKED saying so", async () => {
    server.reply({ status: 302, headers: { location: 'https://www.google.com/search?q=rust' }, rawBody: '' })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: '!!g rust' }, call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(error.details.providerCode, 'external_bang')
    assert.match(error.message, /external bang \(!!\.\.\.\).*search without the bang/)
    assert.ok(!error.message.includes('q=rust'))
    await provider.close()
  })

  it('401 with no credential configured: says to set authEnv and store the value', async () => {
    server.reply('searxng-401-basic-auth')
    const { provider } = providerFor(server, { authEnv: undefined })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    assert.equal(
      error.message,
      'SearXNG: the instance asks for credentials (HTTP 401, asking for Basic authentication) and the searxng row names none: ' +
        'set authEnv (and authScheme) in the row, then store the value with `dsh credentials set NAME`.',
    )
    await provider.close()
  })

  it('400 "No query": INVALID_ARGUMENT on q, quoting it', async () => {
    server.reply('searxng-400-no-query')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'INVALID_ARGUMENT')
    assert.equal(error.details.argument, 'q')
    assert.match(error.message, /^SearXNG rejected the request \(HTTP 400\): No query\./)
    await provider.close()
  })

  it('400 naming a parameter: INVALID_ARGUMENT with that argument', async () => {
    server.reply('searxng-400-invalid-parameter')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.details.argument, 'time_range')
    await provider.close()
  })

  it('an {"error": ...} body under HTTP 200 is the instance\'s word, quoted, not a format problem', async () => {
    server.reply({ status: 200, body: { error: 'search error' } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.equal(error.message, 'SearXNG answered with an error (HTTP 200): search error.')
    await provider.close()
  })

  it('an HTML page where JSON was expected: WEB_PROVIDER_BAD_RESPONSE naming the content type', async () => {
    server.reply('searxng-200-html')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.equal(error.message, 'SearXNG answered HTTP 200 but the body is not JSON (text/html); expected a SearXNG JSON search response (an object with a `results` array).')
    await provider.close()
  })

  it('a JSON object without results is WEB_PROVIDER_BAD_RESPONSE', async () => {
    server.reply({ status: 200, body: { query: 'q' } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    assert.match(error.message, /has no `results` array/)
    await provider.close()
  })

  it('the password (and the Basic token) echoed by a proxy is scrubbed from the message', async () => {
    const token = Buffer.from(TEST_KEY).toString('base64')
    server.reply({ status: 401, body: { error: `bad password ${TEST_PASSWORD} in Basic ${token}` } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    const json = JSON.stringify(error.toJSON())
    for (const secret of [TEST_PASSWORD, token, TEST_KEY]) assert.ok(!json.includes(secret), secret)
    assert.match(error.message, /It said: bad password \[redacted\] in Basic \[redacted\]$/)
    await provider.close()
  })

  it('429 with Retry-After (a proxy, or a later SearXNG) is retried after it', async () => {
    server.reply('searxng-429-retry-after', 'searxng-429-retry-after', 'searxng-429-retry-after')
    const { provider, waits } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_RATE_LIMITED')
    assert.equal(error.retryable, true)
    assert.equal(error.details.retryAfterMs, 1000)
    assert.equal(error.details.attempts, 3)
    assert.equal(server.requests.length, 3)
    assert.deepEqual(waits, [1000, 1000])
    assert.equal(server.requests[2]!.path, server.requests[0]!.path, 'the same query string each attempt')
    await provider.close()
  })

  itRetriesWithinTheDeadline(subject)
  itRefusesUnreadableAnswers(subject)
  itAbortsWhileWaiting(subject)

  it('a connection refused is WEB_PROVIDER_ERROR naming the endpoint', async () => {
    const closed = await FixtureServer.start()
    const url = closed.url
    await closed.close()
    const { provider } = providerFor(server, { baseURL: url, maxRetries: 0 })
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.match(error.message, new RegExp(`^SearXNG could not be reached at ${url}/search: ECONNREFUSED`))
    await provider.close()
  })
})
