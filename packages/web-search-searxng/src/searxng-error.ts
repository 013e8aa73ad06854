import { cleanUntrustedLine } from 'dsh-host'
import { redactUrl, WebError, type WebErrorDetails } from 'dsh-web'
import { headerValue, parseRetryAfter, scrubSecret, type HttpAnswer, type ProviderErrorContext } from 'dsh-provider-kit'
import { parseSearxngErrorBody } from './searxng-search-api.js'

export interface SearxngErrorContext extends ProviderErrorContext {
  /** The credential's name (`authEnv`), when the row names one. */
  credentialName?: string
  /** Further values scrubbed from quoted text (e.g. the password part of user:password). */
  secrets?: string[]
}

/** The limiter's fix, as its documentation gives it (docs/providers.md, "SearXNG"). */
export const LIMITER_FIX =
  "set `limiter: false` in the `server` section of the instance's settings.yml, or add this host's address to `pass_ip` " +
  'under `[botdetection.ip_lists]` in its limiter.toml'

export const JSON_FORMAT_FIX = "enable `json` in `search.formats` of the instance's settings.yml (e.g. `formats: [html, json]`) and restart it"

/**
 * A non-2xx answer of `/search` to a `WebError` whose message says what to
 * fix. SearXNG's own errors: 400 `{"error": ...}` for a bad parameter, 403
 * (an HTML page) when `json` is not an enabled format, 429 (plain text, no
 * Retry-After) from its limiter, 500 `{"error": "search error"}`. A proxy in
 * front of it adds 401 and its own pages.
 */
export function fromSearxngError(answer: HttpAnswer, context: SearxngErrorContext): WebError {
  const { status } = answer
  const body = parseSearxngErrorBody(answer.text)
  const quoted = typeof body?.error === 'string' && body.error.trim() ? cleanUntrustedLine(scrub(body.error, context), { maxLength: 500 }) : undefined
  const type = contentType(answer)
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(context.endpoint), status }
  const notJson = body === undefined && answer.text.trim() ? ` (the body is not JSON${type ? `, ${type}` : ''})` : ''
  /** Where the credential sent came from, e.g. "SEARXNG_AUTH from the credentials store"; never its value. */
  const sent = context.credential

  if (status === 401) {
    const challenge = headerValue(answer.headers, 'www-authenticate')?.split(/\s/)[0]
    const asks = challenge ? `, asking for ${challenge} authentication` : ''
    if (context.credentialName) details.credential = context.credentialName
    const fix = sent
      ? `the instance (or the proxy in front of it) refused ${sent} (HTTP 401${asks}). Check that value ` +
        '(for authScheme basic it is user:password) and authScheme in the searxng row.'
      : `the instance asks for credentials (HTTP 401${asks}) and the searxng row names none: set authEnv (and authScheme) in the row, ` +
        'then store the value with `dsh credentials set NAME`.'
    return new WebError('WEB_PROVIDER_AUTH_FAILED', `SearXNG: ${fix}${quoted ? ` It said: ${quoted}` : ''}`, { details })
  }

  if (status === 403 && !quoted) {
    // SearXNG aborts with Werkzeug's HTML 403 page when format=json is not enabled.
    details.providerCode = 'json_format_disabled'
    const proxy = sent ? ` If a proxy in front of it refused ${sent} instead, check that too.` : ''
    return new WebError(
      'WEB_PROVIDER_ERROR',
      `SearXNG answered HTTP 403 to format=json${notJson}: the instance does not serve JSON; ${JSON_FORMAT_FIX}.${proxy}`,
      { details },
    )
  }

  if (status === 429) {
    const retryAfterMs = parseRetryAfter(answer.headers)
    const text = plainText(answer)
    const said = quoted ?? (text ? scrub(text, context) : undefined)
    if (retryAfterMs !== undefined) {
      details.retryAfterMs = retryAfterMs
      return new WebError('WEB_PROVIDER_RATE_LIMITED', `SearXNG is rate limiting requests (HTTP 429${said ? `: ${said}` : ''}).`, { details })
    }
    details.providerCode = 'limiter'
    // The one place a provider overrides the seam's rule (429, retryable): the limiter names no wait and keeps
    // refusing this host until the instance's settings change, so a retry only feeds its block list.
    return new WebError(
      'WEB_PROVIDER_RATE_LIMITED',
      `SearXNG: the instance's limiter refused the request (HTTP 429${said ? `: ${said}` : ''}); ${LIMITER_FIX}. ` +
        'It sends no Retry-After, so the request is not retried.',
      { details, retryable: false },
    )
  }

  if (status === 400 && quoted) {
    const argument = /parameter\s+"?([a-z_]+)/i.exec(quoted)?.[1] ?? (/query|\bq\b/i.test(quoted) ? 'q' : undefined)
    if (argument) details.argument = argument
    return new WebError(
      'INVALID_ARGUMENT',
      `SearXNG rejected the request (HTTP 400): ${quoted}. Check language, safesearch, timeRange, categories and engines in the searxng row.`,
      { details },
    )
  }

  if (status === 404) {
    return new WebError(
      'WEB_PROVIDER_ERROR',
      `SearXNG: nothing answers at ${redactUrl(context.endpoint)} (HTTP 404)${notJson}; check baseURL (the instance's root: /search is appended).`,
      { details },
    )
  }

  const what = status >= 500 ? 'failed on its side' : status < 300 ? 'answered with an error' : 'rejected the request'
  const sentHint = status === 403 && sent ? ` (the credential sent: ${sent})` : ''
  return new WebError('WEB_PROVIDER_ERROR', `SearXNG ${what} (HTTP ${status})${quoted ? `: ${quoted}` : notJson}${sentHint}.`, { details })
}

/**
 * A redirect SearXNG itself explains, else undefined (the kit's refusal).
 * Never followed either way. A redirect to the instance's own front page is
 * its limiter's bot detection; one to another site comes from an external
 * bang (`!!g ...`) in the query, which SearXNG answers with a redirect even
 * for format=json.
 */
export function fromSearxngRedirect(answer: HttpAnswer, target: URL | undefined, context: SearxngErrorContext, query: string): WebError | undefined {
  if (!target) return undefined
  const { endpoint } = context
  const details: WebErrorDetails = { providerId: context.providerId, url: redactUrl(endpoint), status: answer.status }
  // The front page: the instance's root, or the host's, when a proxy mounts the instance under a path it does not tell it about.
  const root = endpoint.pathname.replace(/\/search$/, '')
  if (target.origin === endpoint.origin && [root, `${root}/`, '/'].includes(target.pathname)) {
    details.providerCode = 'limiter'
    return new WebError(
      'WEB_PROVIDER_RATE_LIMITED',
      `SearXNG: the instance's limiter refused the request (HTTP ${answer.status}, a redirect to its front page ${redactUrl(target)}); ${LIMITER_FIX}. ` +
        'Redirects are never followed.',
      { details },
    )
  }
  if (target.origin !== endpoint.origin && /(^|\s)!!\S/.test(query)) {
    details.providerCode = 'external_bang'
    return new WebError(
      'WEB_REDIRECT_BLOCKED',
      `SearXNG answered HTTP ${answer.status} with a redirect to ${target.origin} because the query holds an external bang (!!...), ` +
        'which it answers with a redirect even for format=json. Redirects are never followed: search without the bang.',
      { details },
    )
  }
  return undefined
}

function scrub(text: string, context: SearxngErrorContext): string {
  let result = scrubSecret(text, context.secret)
  for (const secret of context.secrets ?? []) result = scrubSecret(result, secret)
  return result
}

function contentType(answer: HttpAnswer): string | undefined {
  return headerValue(answer.headers, 'content-type')?.split(';')[0]?.trim() || undefined
}

/**
 * A short body without markup, on one line: the limiter's "Too Many Requests"
 * (Flask labels it text/html all the same); undefined for a page or a long body.
 */
function plainText(answer: HttpAnswer): string | undefined {
  const text = answer.text.replace(/\s+/g, ' ').trim()
  return text && text.length <= 200 && !/[<>]/.test(text) ? text : undefined
}
