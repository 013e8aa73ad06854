import type { WebErrorCode, WebErrorDetails } from 'dsh-web'

/**
 * The code and the words of an HTTP error status a vendor's mapper has no
 * rule of its own for, the same for every vendor: 429 the rate limit (with
 * the wait the vendor named, into `details.retryAfterMs`), 5xx the vendor's
 * own failure, any other status the request. `retryable` is not worked out
 * here: the seam derives it from the status in `details` and the code.
 */
export function statusFallback(status: number, retryAfterMs: number | undefined, details: WebErrorDetails): { code: WebErrorCode; what: string } {
  if (status === 429) {
    if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs
    return { code: 'WEB_PROVIDER_RATE_LIMITED', what: 'is rate limiting requests' }
  }
  return { code: 'WEB_PROVIDER_ERROR', what: status >= 500 ? 'failed on its side' : 'rejected the request' }
}
