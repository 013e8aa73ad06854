import { redactUrl, WebError, type WebErrorCode, type WebErrorDetails } from 'dsh-web'
import { headerValue, isObject, parseRetryAfter, quoteProviderText, type HttpAnswer, type ProviderErrorContext } from 'dsh-provider-kit'
import { parseBraveError, type BraveApiError } from './brave-web-search-api.js'
import { describeDuration, describeWindow, exhaustedLongWindow, parseBraveRateLimit, shortestWindow } from './brave-rate-limit.js'

export interface BraveErrorContext extends ProviderErrorContext {
  /** The `q` sent, operators included: named when Brave refuses its size. */
  query?: string
  /** The optional parameters the row made this request send (`extra_snippets=true`, ...), named when one is not in the plan. */
  options?: string[]
}

/** Brave's documented limits on `q`. */
export const MAX_QUERY_CHARACTERS = 400
export const MAX_QUERY_WORDS = 50

/**
 * A non-2xx answer of the web search endpoint (or an error body under a 2xx)
 * to a `WebError`. Brave's own error `code` decides before the status: an
 * invalid key comes as 422 SUBSCRIPTION_TOKEN_INVALID, not 401. A 429 reads the
 * rate-limit headers: a longer window (the month) with nothing left is the
 * quota, never retried; otherwise the wait is the shortest window's reset.
 */
export function fromBraveError(answer: HttpAnswer, context: BraveErrorContext): WebError {
  const error = parseBraveError(answer.text)
  const providerCode = typeof error?.code === 'string' && error.code ? error.code : undefined
  const status = answer.status >= 300 ? answer.status : (typeof error?.status === 'number' && error.status >= 400 ? error.status : 500)
  // The status the error stands for (an envelope's own status under a 2xx): the seam decides `retryable` from it and the code.
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(context.endpoint), status }
  if (providerCode) details.providerCode = providerCode
  if (typeof error?.id === 'string' && error.id) details.requestId = error.id

  const windows = parseBraveRateLimit(answer.headers)
  const exhausted = exhaustedLongWindow(windows)

  let code: WebErrorCode
  let what: string
  let hint = ''
  switch (classify(providerCode, status, error !== undefined, exhausted !== undefined)) {
    case 'auth':
      code = 'WEB_PROVIDER_AUTH_FAILED'
      what = 'refused the subscription token'
      if (!error && answer.text.trim()) hint += "; the body is not Brave's JSON error, so a proxy or firewall in front of the API may have answered"
      if (context.credential) hint += ` (the key used: ${context.credential})`
      break
    case 'quota':
      code = 'WEB_PROVIDER_QUOTA_EXHAUSTED'
      what = "reports the plan's quota used up"
      if (exhausted) {
        hint = `; the ${describeWindow(exhausted)} quota${exhausted.limit !== undefined ? ` of ${exhausted.limit} requests` : ''} has none left`
        if (exhausted.resetSeconds !== undefined) {
          hint += ` and resets in ${describeDuration(exhausted.resetSeconds)}`
          details.quotaResetSeconds = exhausted.resetSeconds
        }
      }
      break
    case 'rate': {
      code = 'WEB_PROVIDER_RATE_LIMITED'
      what = 'is rate limiting requests'
      const window = shortestWindow(windows)
      const retryAfterMs = parseRetryAfter(answer.headers) ?? (window?.resetSeconds !== undefined ? Math.ceil(window.resetSeconds * 1000) : undefined)
      if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs
      if (window?.resetSeconds !== undefined) {
        hint = `; the ${describeWindow(window)} limit${window.limit !== undefined ? ` of ${window.limit}` : ''} resets in ${describeDuration(window.resetSeconds)}`
      }
      break
    }
    case 'plan':
      code = 'WEB_PROVIDER_ERROR'
      what = "refused an option the subscription's plan does not include"
      hint = context.options?.length
        ? `; this row sends ${context.options.join(', ')}: remove the option from the row or change the plan`
        : '; the request sends no optional parameter of the row, so the plan lacks a basic one: check the subscription'
      break
    case 'validation': {
      code = 'INVALID_ARGUMENT'
      what = "rejected the request's parameters"
      const located = validationLocations(error, context.secret)
      if (located) hint = ` (${located})`
      const size = querySize(context.query)
      if (size && (size.characters > MAX_QUERY_CHARACTERS || size.words > MAX_QUERY_WORDS)) {
        hint +=
          `; Brave takes a query of at most ${MAX_QUERY_CHARACTERS} characters and ${MAX_QUERY_WORDS} words, site: operators for domain filters included, ` +
          `and this one has ${size.characters} characters and ${size.words} words`
        details.argument = 'query'
      }
      break
    }
    case 'upstream':
      code = 'WEB_PROVIDER_ERROR'
      what = 'failed on its side'
      break
    default:
      // 400, 404 and the rest: the request itself is wrong; the seam finds a 408 or 409 worth repeating by the status.
      code = 'WEB_PROVIDER_ERROR'
      what = 'rejected the request'
      break
  }

  const detail = typeof error?.detail === 'string' && error.detail ? quoteProviderText(error.detail, context.secret, 500) : undefined
  const quoted = detail
    ? `: ${detail}`
    : !error && answer.text.trim()
      ? ` (the body is not JSON${contentType(answer) ? `, ${contentType(answer)}` : ''})`
      : ''
  const label = providerCode ? `HTTP ${answer.status}, ${providerCode}` : `HTTP ${answer.status}`
  return new WebError(code, `Brave Search ${what} (${label})${quoted}${hint}`, { details })
}

type ErrorKind = 'auth' | 'quota' | 'rate' | 'plan' | 'validation' | 'upstream' | 'request'

/** Brave's error code first, then the status: the same status carries different codes (422 is a bad key or a bad parameter). */
function classify(providerCode: string | undefined, status: number, json: boolean, quotaExhausted: boolean): ErrorKind {
  switch (providerCode) {
    case 'SUBSCRIPTION_TOKEN_INVALID':
      return 'auth'
    case 'QUOTA_LIMITED':
      return 'quota'
    case 'RATE_LIMITED':
      return quotaExhausted ? 'quota' : 'rate'
    case 'OPTION_NOT_IN_PLAN':
      return 'plan'
    case 'VALIDATION':
      return 'validation'
    default:
      break
  }
  if (status === 401 || status === 403) return 'auth'
  if (status === 402) return 'quota'
  if (status === 429) return quotaExhausted ? 'quota' : 'rate'
  if (status === 422 && json) return 'validation'
  if (status >= 500) return 'upstream'
  return 'request'
}

/** `meta.errors[].loc` and `msg` as "query.q: String too long", scrubbed; undefined when there are none. */
function validationLocations(error: BraveApiError | undefined, secret: string): string | undefined {
  const errors = isObject(error?.meta) && Array.isArray(error.meta.errors) ? error.meta.errors.filter(isObject) : []
  const parts = errors.slice(0, 5).map((entry) => {
    const loc = Array.isArray(entry.loc) ? entry.loc.map(String).join('.') : ''
    const message = typeof entry.msg === 'string' ? entry.msg : ''
    return quoteProviderText([loc, message].filter(Boolean).join(': '), secret, 200)
  })
  const shown = parts.filter(Boolean)
  if (errors.length > 5) shown.push(`and ${errors.length - 5} more`)
  return shown.length ? shown.join('; ') : undefined
}

function querySize(query: string | undefined): { characters: number; words: number } | undefined {
  if (query === undefined) return undefined
  return { characters: [...query].length, words: query.trim().split(/\s+/).filter(Boolean).length }
}

function contentType(answer: HttpAnswer): string | undefined {
  return headerValue(answer.headers, 'content-type')?.split(';')[0]?.trim() || undefined
}
