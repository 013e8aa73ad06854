import { redactUrl, WebError, type WebErrorCode, type WebErrorDetails } from 'dsh-web'
import { headerValue, isObject, parseRetryAfter, quoteProviderText, statusFallback, type HttpAnswer, type ProviderErrorContext } from 'dsh-provider-kit'
import { parseGeminiErrorBody, type GeminiErrorBody } from './gemini-generate-content-api.js'

export type GeminiErrorContext = ProviderErrorContext

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo'
const QUOTA_FAILURE = 'type.googleapis.com/google.rpc.QuotaFailure'
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo'

/** ErrorInfo reasons that mean the key itself is wrong, though Google answers them with 400 INVALID_ARGUMENT. */
const KEY_REASONS = new Set(['API_KEY_INVALID', 'API_KEY_EXPIRED'])

/**
 * A non-2xx answer of generateContent (google.rpc.Status: `{error: {code,
 * message, status, details}}`) to a `WebError`, quoting Google's message with
 * the key scrubbed. RESOURCE_EXHAUSTED is a rate limit (retried after
 * RetryInfo.retryDelay, or retry-after) unless a QuotaFailure names a daily
 * quota, which no retry within a search fixes.
 */
export function fromGeminiError(answer: HttpAnswer, context: GeminiErrorContext): WebError {
  const body = parseGeminiErrorBody(answer.text)
  const error = isObject(body?.error) ? body.error : undefined
  // An error envelope under a 2xx status is classified by its code.
  const status = answer.status >= 300 ? answer.status : typeof error?.code === 'number' && error.code >= 400 ? error.code : 500
  const quote = (text: string, maxLength: number) => quoteProviderText(text, context.secret, maxLength)
  const providerMessage = typeof error?.message === 'string' && error.message ? quote(error.message, MESSAGE_MAX) : undefined
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(context.endpoint), status }
  const rpcStatus = typeof error?.status === 'string' && error.status ? error.status : undefined
  const reason = detailOf(body, ERROR_INFO)?.reason
  const providerCode = typeof reason === 'string' && reason ? reason : rpcStatus
  if (providerCode) details.providerCode = quote(providerCode, IDENTIFIER_MAX)

  let code: WebErrorCode
  let what: string
  const dailyQuota = quotaIds(body).find((id) => /PerDay/i.test(id))
  if (status === 401 || status === 403 || (typeof reason === 'string' && KEY_REASONS.has(reason))) {
    code = 'WEB_PROVIDER_AUTH_FAILED'
    what = status === 403 ? 'refused the key for this request' : 'refused the key'
  } else if (status === 402 || (status === 429 && dailyQuota)) {
    code = 'WEB_PROVIDER_QUOTA_EXHAUSTED'
    what = dailyQuota ? `reports the daily quota used up (${quote(dailyQuota, IDENTIFIER_MAX)})` : 'reports no quota left'
  } else {
    // 429, 5xx, and 400 INVALID_ARGUMENT / FAILED_PRECONDITION, 404 and the rest; the seam tells them apart by the status.
    ;({ code, what } = statusFallback(status, retryDelayMs(body) ?? parseRetryAfter(answer.headers), details))
  }
  const type = headerValue(answer.headers, 'content-type')?.split(';')[0]?.trim()
  const quoted = providerMessage ? `: ${providerMessage}` : body === undefined && answer.text.trim() ? ` (the body is not JSON${type ? `, ${quote(type, IDENTIFIER_MAX)}` : ''})` : ''
  const hint = code === 'WEB_PROVIDER_AUTH_FAILED' && context.credential ? ` (the key used: ${context.credential})` : ''
  return new WebError(code, `Gemini ${what} (HTTP ${answer.status}${rpcStatus ? ` ${quote(rpcStatus, IDENTIFIER_MAX)}` : ''})${quoted}${hint}`, { details })
}

/** The provider's message is quoted up to this many characters, then cut visibly. */
const MESSAGE_MAX = 500
/** A code, a status, a quota id, a content type. */
const IDENTIFIER_MAX = 200
/** A retryDelay longer than this is not a wait within a search; it is reported as given, capped. */
const RETRY_DELAY_MAX_MS = 24 * 3600_000

function detailOf(body: GeminiErrorBody | undefined, type: string): Record<string, unknown> | undefined {
  const list = Array.isArray(body?.error?.details) ? body.error.details : []
  return list.find((detail): detail is Record<string, unknown> & { '@type': string } => isObject(detail) && detail['@type'] === type)
}

function quotaIds(body: GeminiErrorBody | undefined): string[] {
  const violations = detailOf(body, QUOTA_FAILURE)?.violations
  if (!Array.isArray(violations)) return []
  return violations.flatMap((violation) => (isObject(violation) && typeof violation.quotaId === 'string' ? [violation.quotaId] : []))
}

/** RetryInfo.retryDelay, a protobuf Duration in JSON: "58s", "0.5s", "1.234567s". */
function retryDelayMs(body: GeminiErrorBody | undefined): number | undefined {
  const delay = detailOf(body, RETRY_INFO)?.retryDelay
  if (typeof delay !== 'string') return undefined
  const match = /^(\d{1,9})(?:\.(\d{1,9}))?s$/.exec(delay.trim())
  if (!match) return undefined
  const ms = Number(match[1]) * 1000 + Math.ceil(Number(`0.${match[2] ?? '0'}`) * 1000)
  return Math.min(ms, RETRY_DELAY_MAX_MS)
}
