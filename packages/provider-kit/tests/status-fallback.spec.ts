// A vendor's mapper gives the seam the status and its code; the seam, not the mapper, says whether a retry helps.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { statusFallback } from 'dsh-provider-kit'
import { WebError, type WebErrorDetails } from 'dsh-web'

describe('statusFallback', () => {
  const cases: [status: number, code: string, what: string, retryable: boolean][] = [
    [429, 'WEB_PROVIDER_RATE_LIMITED', 'is rate limiting requests', true],
    [500, 'WEB_PROVIDER_ERROR', 'failed on its side', true],
    [529, 'WEB_PROVIDER_ERROR', 'failed on its side', true],
    [408, 'WEB_PROVIDER_ERROR', 'rejected the request', true],
    [409, 'WEB_PROVIDER_ERROR', 'rejected the request', true],
    [400, 'WEB_PROVIDER_ERROR', 'rejected the request', false],
    [404, 'WEB_PROVIDER_ERROR', 'rejected the request', false],
    [422, 'WEB_PROVIDER_ERROR', 'rejected the request', false],
  ]
  for (const [status, code, what, retryable] of cases) {
    it(`maps HTTP ${status} to ${code}, and the seam derives retryable ${retryable} from the status`, () => {
      const details: WebErrorDetails = { providerId: 'test', status }
      const mapped = statusFallback(status, undefined, details)
      assert.deepEqual(mapped, { code, what })
      assert.equal(new WebError(mapped.code, 'm', { details }).retryable, retryable)
    })
  }

  it("puts the vendor's wait into the details of a 429 only", () => {
    const limited: WebErrorDetails = { status: 429 }
    statusFallback(429, 1_500, limited)
    assert.equal(limited.retryAfterMs, 1_500)
    const failed: WebErrorDetails = { status: 503 }
    statusFallback(503, 1_500, failed)
    assert.equal(failed.retryAfterMs, undefined)
  })
})
