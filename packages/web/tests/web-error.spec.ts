import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { abortError, redactUrl, WEB_ERROR_CODES, WEB_ERROR_MESSAGES, WebError } from 'dsh-web'

describe('WebError', () => {
  it('has the closed set of codes the later packages use', () => {
    for (const code of [
      'INVALID_ARGUMENT', 'WEB_PROVIDER_NOT_REGISTERED', 'WEB_PROVIDER_UNAVAILABLE', 'WEB_PROVIDER_CREDENTIAL_MISSING',
      'WEB_PROVIDER_AUTH_FAILED', 'WEB_PROVIDER_RATE_LIMITED', 'WEB_PROVIDER_QUOTA_EXHAUSTED', 'WEB_PROVIDER_ERROR',
      'WEB_PROVIDER_BAD_RESPONSE', 'WEB_SEARCH_FAILED', 'WEB_TIMEOUT', 'WEB_ABORTED', 'WEB_INVALID_URL', 'WEB_BLOCKED_URL',
      'WEB_BLOCKED_ADDRESS', 'WEB_REDIRECT_BLOCKED', 'WEB_FETCH_TOO_LARGE', 'WEB_FETCH_FAILED', 'WEB_UNSUPPORTED_CONTENT_TYPE',
      'WEB_NO_TEXT_CONTENT', 'WEB_HTTP_STATUS', 'WEB_ARTIFACT_WRITE_FAILED',
    ]) assert.ok(WEB_ERROR_CODES.includes(code as never), code)
  })

  for (const code of WEB_ERROR_CODES) {
    it(`${code} has a default message a person can read`, () => {
      const error = new WebError(code)
      assert.equal(error.message, WEB_ERROR_MESSAGES[code])
      assert.match(error.message, /^[A-Z].{10,}\.$/)
      assert.equal(error.code, code)
    })
  }

  it('derives retryable from the code and the HTTP status', () => {
    assert.equal(new WebError('WEB_PROVIDER_RATE_LIMITED').retryable, true)
    assert.equal(new WebError('WEB_TIMEOUT').retryable, true)
    assert.equal(new WebError('WEB_PROVIDER_AUTH_FAILED', undefined, { details: { status: 401 } }).retryable, false)
    assert.equal(new WebError('WEB_PROVIDER_BAD_RESPONSE', undefined, { details: { status: 503 } }).retryable, true)
    assert.equal(new WebError('WEB_HTTP_STATUS', undefined, { details: { status: 408 } }).retryable, true)
    assert.equal(new WebError('WEB_HTTP_STATUS', undefined, { details: { status: 404 } }).retryable, false)
    assert.equal(new WebError('WEB_PROVIDER_QUOTA_EXHAUSTED', undefined, { details: { status: 429 }, retryable: false }).retryable, false)
  })

  it('is recognised across copies by its brand, and keeps its cause', () => {
    const cause = new Error('socket hang up')
    const error = new WebError('WEB_FETCH_FAILED', 'The connection was reset.', { cause })
    const lookalike = Object.assign(Object.create(Error.prototype), { [Symbol.for('dsh-web.WebError')]: true })
    assert.ok(WebError.is(error))
    assert.ok(WebError.is(lookalike))
    assert.ok(!WebError.is(new Error('x')))
    assert.equal(error.cause, cause)
    assert.deepEqual(Object.keys(error.toJSON()).sort(), ['code', 'details', 'message', 'name', 'retryable'])
  })

  it('redacts userinfo, query and fragment from URLs meant for details', () => {
    assert.equal(redactUrl('https://user:pw@example.com/a?key=secret#x'), 'https://example.com/a')
    assert.equal(redactUrl('not a url'), '<unparseable url>')
  })

  it('tells a deadline from a cancellation', () => {
    assert.equal(abortError(AbortSignal.abort()).code, 'WEB_ABORTED')
    const timeout = new AbortController()
    timeout.abort(new DOMException('deadline', 'TimeoutError'))
    assert.equal(abortError(timeout.signal).code, 'WEB_TIMEOUT')
    const given = new WebError('WEB_TIMEOUT', 'tool deadline')
    assert.equal(abortError(AbortSignal.abort(given)), given)
  })
})
