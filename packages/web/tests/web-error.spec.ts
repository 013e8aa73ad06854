import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CodedError } from 'dsh-host'
import { abortError, redactUrl, WEB_ERROR_CODES, WEB_ERROR_MESSAGES, WebError, type WebErrorCode } from 'dsh-web'

describe('WebError', () => {
  // Written out, not read from the table under test: a changed or missing
  // message, or a code added without a message here, fails.
  const expected: Record<string, string> = {
    INVALID_ARGUMENT: 'An argument is not valid.',
    WEB_PROVIDER_NOT_REGISTERED: 'The configured web provider is not registered.',
    WEB_PROVIDER_UNAVAILABLE: 'The configured web provider is registered but not available.',
    WEB_PROVIDER_CREDENTIAL_MISSING: 'The web provider has no credential configured.',
    WEB_PROVIDER_AUTH_FAILED: 'The web provider refused the credential.',
    WEB_PROVIDER_RATE_LIMITED: 'The web provider is rate limiting requests; try again later.',
    WEB_RATE_LIMITED: 'The request is over a limit this deployment sets; try again after the time given.',
    WEB_PROVIDER_QUOTA_EXHAUSTED: 'The web provider account has no quota or balance left.',
    WEB_PROVIDER_ERROR: 'The web provider failed to answer.',
    WEB_PROVIDER_BAD_RESPONSE: 'The web provider answered with something that is not its documented format.',
    WEB_SEARCH_FAILED: 'The web search failed.',
    WEB_TIMEOUT: 'The web request took longer than its deadline.',
    WEB_ABORTED: 'The web request was cancelled.',
    WEB_INVALID_URL: 'The URL is not valid.',
    WEB_BLOCKED_URL: 'The URL is not allowed.',
    WEB_BLOCKED_ADDRESS: 'The destination address is not public and is not allowed.',
    WEB_REDIRECT_BLOCKED: 'A redirect was refused.',
    WEB_FETCH_TOO_LARGE: 'The response is larger than the allowed size.',
    WEB_FETCH_FAILED: 'The page could not be fetched.',
    WEB_PROXY_FAILED: 'The proxy could not be reached or refused the connection.',
    WEB_UNSUPPORTED_CONTENT_TYPE: 'The content type of the response is not supported.',
    WEB_NO_TEXT_CONTENT: 'The response has no text content.',
    WEB_DOCUMENT_UNREADABLE: 'The document is encrypted or damaged, and its text cannot be read.',
    WEB_DOCUMENT_TOO_COMPLEX: 'Reading the document needs more memory or output than a document reader may use.',
    WEB_HTTP_STATUS: 'The server answered with an error status.',
    WEB_PAGE_WALLED: 'The site answered with a wall (a bot check or a sign-in) instead of the page.',
    WEB_ARTIFACT_WRITE_FAILED: 'The complete content could not be written to an artifact file.',
    WEB_URL_NOT_IN_CONTEXT: 'The URL was not seen in this session (a search result, a link of a page read here, or a URL the user gave); search for it, or ask the user to paste the URL.',
  }

  it('has exactly the closed set of codes', () => {
    assert.deepEqual([...WEB_ERROR_CODES].sort(), Object.keys(expected).sort())
  })

  for (const [code, message] of Object.entries(expected)) {
    it(`${code} says by default: ${message}`, () => {
      const error = new WebError(code as WebErrorCode)
      assert.equal(error.message, message)
      assert.equal(error.code, code)
      assert.equal(WEB_ERROR_MESSAGES[code as WebErrorCode], message)
    })
  }

  it('takes retryable from the HTTP status class when there is one, else from the code, never for a code no repetition fixes', () => {
    const cases: Array<[WebErrorCode, number | undefined, boolean]> = [
      // A refused key, a spent quota and a rejected argument stay so, whatever status they came with (OpenAI and Brave send quota as 429).
      ['WEB_PROVIDER_QUOTA_EXHAUSTED', 429, false],
      ['WEB_PROVIDER_QUOTA_EXHAUSTED', undefined, false],
      ['WEB_PROVIDER_AUTH_FAILED', 503, false],
      ['INVALID_ARGUMENT', 500, false],
      ['WEB_PROVIDER_RATE_LIMITED', 429, true],
      ['WEB_PROVIDER_RATE_LIMITED', undefined, true],
      ['WEB_RATE_LIMITED', undefined, true],
      ['WEB_TIMEOUT', undefined, true],
      ['WEB_PROVIDER_ERROR', undefined, true],
      ['WEB_FETCH_FAILED', undefined, false],
      // A 400 is never worth repeating, even under a code that usually is.
      ['WEB_PROVIDER_ERROR', 400, false],
      ['WEB_PROVIDER_RATE_LIMITED', 403, false],
      ['WEB_PROVIDER_AUTH_FAILED', 401, false],
      ['WEB_PROVIDER_BAD_RESPONSE', 503, true],
      ['WEB_HTTP_STATUS', 408, true],
      ['WEB_HTTP_STATUS', 409, true],
      ['WEB_HTTP_STATUS', 429, true],
      // The edges of the 5xx class: 499 is a client's, 500 and 599 the server's.
      ['WEB_HTTP_STATUS', 499, false],
      ['WEB_HTTP_STATUS', 500, true],
      ['WEB_HTTP_STATUS', 599, true],
      ['WEB_HTTP_STATUS', 600, false],
      ['WEB_HTTP_STATUS', 404, false],
      ['WEB_HTTP_STATUS', 200, false],
    ]
    for (const [code, status, retryable] of cases) {
      const error = new WebError(code, undefined, status === undefined ? {} : { details: { status } })
      assert.equal(error.retryable, retryable, `${code} with status ${status}`)
    }
    assert.equal(new WebError('WEB_PROVIDER_QUOTA_EXHAUSTED', undefined, { details: { status: 429 }, retryable: false }).retryable, false, 'an explicit value wins')
  })

  it('is a CodedError of the host contract, so any tools service reports its code', () => {
    const error = new WebError('WEB_BLOCKED_URL', 'no')
    assert.ok(CodedError.is(error))
    assert.ok(error instanceof Error)
    assert.equal(error.name, 'WebError')
    assert.ok(!WebError.is(new CodedError('X', 'a plain coded error is not a WebError')))
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
