import { redactUrl, WebError, type WebErrorCode, type WebErrorDetails } from 'dsh-web'
import { headerValue, parseRetryAfter, quoteProviderText, statusFallback, type HttpAnswer, type ProviderErrorContext } from 'dsh-provider-kit'
import { parsePerplexityError } from './perplexity-search-api.js'

export type PerplexityErrorContext = ProviderErrorContext

/** The provider's message is quoted up to this many characters, then cut visibly. */
const MESSAGE_MAX = 500

/** Error types that mean the credits, not the rate: never retried. */
const QUOTA_TYPES = new Set(['insufficient_quota', 'insufficient_credits', 'billing_error'])

/**
 * A non-2xx answer of `/search` (or an error body under a 2xx) to a
 * `WebError`: 401 and 403 the key (a 403 HTML page is the CDN in front of
 * the API), 402 or an insufficient-quota type the credits (never retried),
 * 429 the rate limit (retried after `retry-after` / `retry-after-ms`), 5xx its
 * own failure, other 4xx the request. The message is quoted with the key scrubbed.
 */
export function fromPerplexityError(answer: HttpAnswer, context: PerplexityErrorContext): WebError {
  const error = parsePerplexityError(answer.text)
  const status = answer.status >= 300 ? answer.status : 500
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(context.endpoint), status }
  if (error?.type) details.providerCode = quoteProviderText(error.type, context.secret, 200)
  const requestId = headerValue(answer.headers, 'x-request-id')
  if (requestId) details.requestId = quoteProviderText(requestId, context.secret, 200)
  const type = headerValue(answer.headers, 'content-type')?.split(';')[0]?.trim()

  let code: WebErrorCode
  let what: string
  let hint = ''
  if (status === 402 || QUOTA_TYPES.has(error?.type ?? '')) {
    code = 'WEB_PROVIDER_QUOTA_EXHAUSTED'
    what = 'reports the API credits used up'
    hint = '; add credits or raise the limit in the API settings at perplexity.ai'
  } else if (status === 401 || status === 403) {
    code = 'WEB_PROVIDER_AUTH_FAILED'
    what = status === 401 ? 'refused the API key' : 'refused the request'
    if (status === 403 && !error && answer.text.trim()) hint = '; the body is not JSON, so the CDN or a proxy in front of the API may have answered'
    if (context.credential) hint += ` (the key used: ${context.credential})`
  } else {
    ;({ code, what } = statusFallback(status, parseRetryAfter(answer.headers), details))
  }
  const label = error?.type ? `HTTP ${answer.status}, ${quoteProviderText(error.type, context.secret, 200)}` : `HTTP ${answer.status}`
  const quoted = error?.message
    ? `: ${quoteProviderText(error.message, context.secret, MESSAGE_MAX)}`
    : answer.text.trim() && !error
      ? ` (the body is not Perplexity's JSON error${type ? `, ${quoteProviderText(type, context.secret, 100)}` : ''})`
      : ''
  return new WebError(code, `Perplexity ${what} (${label})${quoted}${hint}`, { details })
}
