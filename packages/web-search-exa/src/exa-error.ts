import { redactUrl, WebError, type WebErrorCode, type WebErrorDetails } from 'dsh-web'
import { headerValue, parseRetryAfter, quoteProviderText, statusFallback, type HttpAnswer, type ProviderErrorContext } from 'dsh-provider-kit'
import { parseExaError } from './exa-search-api.js'

export type ExaErrorContext = ProviderErrorContext

/** The provider's message is quoted up to this many characters, then cut visibly. */
const MESSAGE_MAX = 500

/** 403 tags that refuse the content, not the key. */
const CONTENT_REFUSALS = new Set(['PROHIBITED_CONTENT', 'ROBOTS_FILTER_FAILED'])

/**
 * A non-2xx answer of `/search` (or an error body under a 2xx) to a
 * `WebError`, by the statuses Exa documents: 401 a missing or invalid key,
 * 402 credits or the key's budget used up (never retried), 403 the plan or a
 * policy, 429 the rate limit (retried after `retry-after` when sent), 400 and
 * 422 the request, 5xx its own failure. Its `error` and `message` are quoted
 * with the key scrubbed; its `tag` and `requestId` go in the details.
 */
export function fromExaError(answer: HttpAnswer, context: ExaErrorContext): WebError {
  const error = parseExaError(answer.text)
  const status = answer.status >= 300 ? answer.status : 500
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(context.endpoint), status }
  if (error?.tag) details.providerCode = quoteProviderText(error.tag, context.secret, 200)
  if (error?.requestId) details.requestId = quoteProviderText(error.requestId, context.secret, 200)

  let code: WebErrorCode
  let what: string
  let hint = ''
  if (status === 401 || (status === 403 && !CONTENT_REFUSALS.has(error?.tag ?? ''))) {
    code = 'WEB_PROVIDER_AUTH_FAILED'
    what = status === 401 ? 'refused the API key' : "refused the request (the key's permissions or plan)"
    if (context.credential) hint = ` (the key used: ${context.credential})`
  } else if (status === 402) {
    code = 'WEB_PROVIDER_QUOTA_EXHAUSTED'
    what = error?.tag === 'API_KEY_BUDGET_EXCEEDED' ? "reports the key's spending budget used up" : 'reports the credits used up'
    hint = '; top up at dashboard.exa.ai or raise the key\'s budget'
  } else {
    ;({ code, what } = statusFallback(status, parseRetryAfter(answer.headers), details))
  }
  const type = headerValue(answer.headers, 'content-type')?.split(';')[0]?.trim()
  const label = error?.tag ? `HTTP ${answer.status}, ${quoteProviderText(error.tag, context.secret, 200)}` : `HTTP ${answer.status}`
  const quoted = error?.message
    ? `: ${quoteProviderText(error.message, context.secret, MESSAGE_MAX)}`
    : answer.text.trim() && !error
      ? ` (the body is not Exa's JSON error${type ? `, ${quoteProviderText(type, context.secret, 100)}` : ''})`
      : ''
  return new WebError(code, `Exa ${what} (${label})${quoted}${hint}`, { details })
}
