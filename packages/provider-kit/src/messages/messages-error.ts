import { redactUrl, WebError, type WebErrorCode, type WebErrorDetails } from 'dsh-web'
import { parseMessagesErrorBody } from './messages-api.js'
import { quoteProviderText } from '../scrub-secret.js'
import { statusFallback } from '../status-fallback.js'
import { headerValue, parseRetryAfter, type HttpAnswer, type ProviderErrorContext } from '../transport.js'

/** What differs per vendor in reading a Messages error. */
export interface MessagesErrorFamily {
  /** Human name in messages, e.g. Anthropic. */
  providerName: string
  /**
   * A message that means the balance is used up although the status does not
   * say so (Anthropic answers an empty balance with 400 invalid_request_error).
   */
  quotaMessage?: RegExp
}

/**
 * A non-2xx answer of a Messages endpoint to a `WebError`. The body may be
 * the Anthropic envelope, the OpenAI-style one (some gateways), or not JSON at
 * all (a proxy's HTML page); the provider's own message is quoted when there
 * is one. All text the provider wrote is quoted with the key scrubbed, as one clean line.
 */
export function fromMessagesError(answer: HttpAnswer, context: ProviderErrorContext, family: MessagesErrorFamily): WebError {
  const body = parseMessagesErrorBody(answer.text)
  // An error envelope under a 2xx status is classified by its Anthropic error type.
  const status = answer.status >= 300 ? answer.status : (STATUS_BY_ERROR_TYPE[String(body?.error?.type)] ?? 500)
  const quote = (text: string, maxLength: number) => quoteProviderText(text, context.secret, maxLength)
  const rawMessage = typeof body?.error?.message === 'string' ? body.error.message : undefined
  const providerMessage = rawMessage === undefined ? undefined : quote(rawMessage, MESSAGE_MAX)
  const providerCode = pickString(body?.error?.code, body?.error?.type)
  // The status the error stands for (an envelope's type under a 2xx): the seam decides `retryable` from it and the code.
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(context.endpoint), status }
  if (providerCode) details.providerCode = quote(providerCode, IDENTIFIER_MAX)
  const requestId = headerValue(answer.headers, 'request-id') ?? (typeof body?.request_id === 'string' ? body.request_id : undefined)
  if (requestId) details.requestId = quote(requestId, IDENTIFIER_MAX)

  let code: WebErrorCode
  let what: string
  if (status === 401 || status === 403) {
    code = 'WEB_PROVIDER_AUTH_FAILED'
    what = status === 403 ? 'refused the key for this request' : 'refused the key'
  } else if (
    status === 402 ||
    providerCode === 'insufficient_quota' ||
    providerCode === 'billing_error' ||
    (status < 500 && rawMessage !== undefined && family.quotaMessage?.test(rawMessage))
  ) {
    code = 'WEB_PROVIDER_QUOTA_EXHAUSTED'
    what = 'reports no balance or quota left'
  } else {
    // 429, 5xx, and 400, 404, 413, 422 and the rest; the seam tells them apart by the status.
    ;({ code, what } = statusFallback(status, parseRetryAfter(answer.headers), details))
  }

  const type = contentType(answer)
  const quoted = providerMessage
    ? `: ${providerMessage}`
    : body === undefined && answer.text.trim()
      ? ` (the body is not JSON${type ? `, ${quote(type, IDENTIFIER_MAX)}` : ''})`
      : ''
  const hint = code === 'WEB_PROVIDER_AUTH_FAILED' && context.credential ? ` (the key used: ${context.credential})` : ''
  return new WebError(code, `${family.providerName} ${what} (HTTP ${answer.status})${quoted}${hint}`, { details })
}

/** The provider's message is quoted up to this many characters, then cut visibly. */
const MESSAGE_MAX = 500
/** A code, a request id, a content type. */
const IDENTIFIER_MAX = 200

/** Anthropic error types and the status each goes with. */
const STATUS_BY_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
}

function contentType(answer: HttpAnswer): string | undefined {
  return headerValue(answer.headers, 'content-type')?.split(';')[0]?.trim() || undefined
}

function pickString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value) return value
  return undefined
}
