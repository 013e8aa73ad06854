import { redactUrl, WebError, type WebErrorCode, type WebErrorDetails } from 'dsh-web'
import { parseOpenAIErrorBody } from './openai-responses-api.js'
import { headerValue, parseRetryAfter, quoteProviderText, statusFallback, type HttpAnswer, type ProviderErrorContext } from 'dsh-provider-kit'

export type OpenAIErrorContext = ProviderErrorContext

/**
 * A non-2xx answer of the Responses endpoint to a `WebError`, quoting OpenAI's
 * own message. A 429 whose code is `insufficient_quota` is a quota refusal,
 * not a rate limit, and is not retried. All text the provider wrote is quoted
 * with the key scrubbed, as one clean line.
 */
export function fromOpenAIError(answer: HttpAnswer, context: OpenAIErrorContext): WebError {
  const body = parseOpenAIErrorBody(answer.text)
  const error = body?.error
  // An error envelope under a 2xx status is classified by its code.
  const status = answer.status >= 300 ? answer.status : (STATUS_BY_ERROR_CODE[String(error?.code)] ?? 500)
  const quote = (text: string, maxLength: number) => quoteProviderText(text, context.secret, maxLength)
  const providerMessage = typeof error?.message === 'string' && error.message ? quote(error.message, MESSAGE_MAX) : undefined
  const providerCode = [error?.code, error?.type].find((value): value is string => typeof value === 'string' && value !== '')
  // The status the error stands for (an envelope's code under a 2xx): the seam decides `retryable` from it and the code.
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(context.endpoint), status }
  if (providerCode) details.providerCode = quote(providerCode, IDENTIFIER_MAX)
  const requestId = headerValue(answer.headers, 'x-request-id')
  if (requestId) details.requestId = quote(requestId, IDENTIFIER_MAX)

  let code: WebErrorCode
  let what: string
  if (status === 401 || status === 403) {
    code = 'WEB_PROVIDER_AUTH_FAILED'
    what = status === 403 ? 'refused the request (permission or region)' : 'refused the key'
  } else if (status === 402 || error?.code === 'insufficient_quota' || error?.type === 'insufficient_quota') {
    code = 'WEB_PROVIDER_QUOTA_EXHAUSTED'
    what = 'reports the account has no quota left'
  } else {
    ;({ code, what } = statusFallback(status, parseRetryAfter(answer.headers), details))
  }
  const type = headerValue(answer.headers, 'content-type')?.split(';')[0]?.trim()
  const quoted = providerMessage ? `: ${providerMessage}` : body === undefined && answer.text.trim() ? ` (the body is not JSON${type ? `, ${quote(type, IDENTIFIER_MAX)}` : ''})` : ''
  const hint = code === 'WEB_PROVIDER_AUTH_FAILED' && context.credential ? ` (the key used: ${context.credential})` : ''
  return new WebError(code, `OpenAI ${what} (HTTP ${answer.status})${quoted}${hint}`, { details })
}

/** The provider's message is quoted up to this many characters, then cut visibly. */
const MESSAGE_MAX = 500
/** A code, a request id, a content type. */
const IDENTIFIER_MAX = 200

/** Error codes OpenAI documents, and the status each goes with. */
const STATUS_BY_ERROR_CODE: Record<string, number> = {
  invalid_api_key: 401,
  unsupported_country_region_territory: 403,
  insufficient_quota: 429,
  rate_limit_exceeded: 429,
  model_not_found: 404,
  server_error: 500,
  server_is_overloaded: 503,
}
