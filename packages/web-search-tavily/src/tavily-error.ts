import { redactUrl, WebError, type WebErrorCode, type WebErrorDetails } from 'dsh-web'
import { headerValue, parseRetryAfter, quoteProviderText, statusFallback, type HttpAnswer, type ProviderErrorContext } from 'dsh-provider-kit'
import { parseTavilyError } from './tavily-search-api.js'

export type TavilyErrorContext = ProviderErrorContext

/** The provider's message is quoted up to this many characters, then cut visibly. */
const MESSAGE_MAX = 500

/**
 * A non-2xx answer of `/search` (or an error body under a 2xx) to a
 * `WebError`, by the statuses Tavily documents: 401 a missing or invalid key,
 * 429 too many requests (retried after its `retry-after`), 432 the plan's
 * limit and 433 the pay-as-you-go limit (the quota: never retried), 400 a bad
 * parameter, 5xx its own failure. The text Tavily wrote is quoted with the
 * key scrubbed.
 */
export function fromTavilyError(answer: HttpAnswer, context: TavilyErrorContext): WebError {
  const error = parseTavilyError(answer.text)
  const status = answer.status >= 300 ? answer.status : 500
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(context.endpoint), status }
  if (error?.code) details.providerCode = quoteProviderText(error.code, context.secret, 200)

  let code: WebErrorCode
  let what: string
  let hint = ''
  if (status === 401 || status === 403) {
    code = 'WEB_PROVIDER_AUTH_FAILED'
    what = status === 401 ? 'refused the API key' : 'refused the request (permission)'
    if (context.credential) hint = ` (the key used: ${context.credential})`
  } else if (status === 432 || status === 433 || status === 402) {
    code = 'WEB_PROVIDER_QUOTA_EXHAUSTED'
    what = status === 433 ? 'reports the pay-as-you-go limit reached' : "reports the plan's usage limit reached"
    hint = status === 433 ? '; raise the limit on the Tavily dashboard' : '; upgrade the plan on the Tavily dashboard or wait for the next billing period'
  } else {
    ;({ code, what } = statusFallback(status, parseRetryAfter(answer.headers) ?? (error?.retryAfterSeconds !== undefined ? Math.ceil(error.retryAfterSeconds * 1000) : undefined), details))
  }
  const type = headerValue(answer.headers, 'content-type')?.split(';')[0]?.trim()
  const quoted = error?.message
    ? `: ${quoteProviderText(error.message, context.secret, MESSAGE_MAX)}`
    : answer.text.trim() && !error
      ? ` (the body is not Tavily's JSON error${type ? `, ${quoteProviderText(type, context.secret, 100)}` : ''})`
      : ''
  return new WebError(code, `Tavily ${what} (HTTP ${answer.status})${quoted}${hint}`, { details })
}
