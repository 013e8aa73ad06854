import { CodedError } from 'dsh-host'

/**
 * The one error class of the web family. Codes form a closed union; each has a
 * default message written for the model and the person reading the transcript.
 */
export const WEB_ERROR_MESSAGES = {
  INVALID_ARGUMENT: 'An argument is not valid.',
  WEB_PROVIDER_NOT_REGISTERED: 'The configured web provider is not registered.',
  WEB_PROVIDER_UNAVAILABLE: 'The configured web provider is registered but not available.',
  WEB_PROVIDER_CREDENTIAL_MISSING: 'The web provider has no credential configured.',
  WEB_PROVIDER_AUTH_FAILED: 'The web provider refused the credential.',
  WEB_PROVIDER_RATE_LIMITED: 'The web provider is rate limiting requests; try again later.',
  WEB_RATE_LIMITED: 'The request is over a limit this deployment sets; try again after the time given.',
  WEB_PROVIDER_QUOTA_EXHAUSTED: 'The web provider account has no quota or balance left.',
  WEB_PROVIDER_ERROR: 'The web provider failed to answer.',
  WEB_PROVIDER_BAD_RESPONSE: 'The web provider answered with something that is not its documented format.',
  WEB_SEARCH_FAILED: 'The web search failed.',
  WEB_TIMEOUT: 'The web request took longer than its deadline.',
  WEB_ABORTED: 'The web request was cancelled.',
  WEB_INVALID_URL: 'The URL is not valid.',
  WEB_BLOCKED_URL: 'The URL is not allowed.',
  WEB_BLOCKED_ADDRESS: 'The destination address is not public and is not allowed.',
  WEB_REDIRECT_BLOCKED: 'A redirect was refused.',
  WEB_FETCH_TOO_LARGE: 'The response is larger than the allowed size.',
  WEB_FETCH_FAILED: 'The page could not be fetched.',
  WEB_PROXY_FAILED: 'The proxy could not be reached or refused the connection.',
  WEB_UNSUPPORTED_CONTENT_TYPE: 'The content type of the response is not supported.',
  WEB_NO_TEXT_CONTENT: 'The response has no text content.',
  WEB_DOCUMENT_UNREADABLE: 'The document is encrypted or damaged, and its text cannot be read.',
  WEB_DOCUMENT_TOO_COMPLEX: 'Reading the document needs more memory or output than a document reader may use.',
  WEB_HTTP_STATUS: 'The server answered with an error status.',
  WEB_PAGE_WALLED: 'The site answered with a wall (a bot check or a sign-in) instead of the page.',
  WEB_ARTIFACT_WRITE_FAILED: 'The complete content could not be written to an artifact file.',
  WEB_URL_NOT_IN_CONTEXT: 'The URL was not seen in this session (a search result, a link of a page read here, or a URL the user gave); search for it, or ask the user to paste the URL.',
} as const

export type WebErrorCode = keyof typeof WEB_ERROR_MESSAGES

export const WEB_ERROR_CODES = Object.keys(WEB_ERROR_MESSAGES) as WebErrorCode[]

/**
 * What `details` may hold: identifiers and figures, never headers or keys.
 * `url` must be given without its query string (see `redactUrl`).
 */
export interface WebErrorDetails {
  providerId?: string
  registered?: string[]
  url?: string
  host?: string
  address?: string
  range?: string
  status?: number
  providerCode?: string
  retryAfterMs?: number
  contentType?: string
  argument?: string
  limit?: number
  credential?: string
  [key: string]: string | number | boolean | string[] | undefined
}

export interface WebErrorOptions {
  details?: WebErrorDetails
  cause?: unknown
  retryable?: boolean
}

const brand = Symbol.for('dsh-web.WebError')

const RETRYABLE_CODES: ReadonlySet<WebErrorCode> = new Set([
  'WEB_PROVIDER_RATE_LIMITED',
  'WEB_RATE_LIMITED',
  'WEB_PROVIDER_ERROR',
  'WEB_TIMEOUT',
])

/**
 * Codes that say no repetition of the same request helps, whatever status came
 * with them: a refused key, an account out of quota (OpenAI and Brave send it
 * as 429, the rate limit's status), a rejected argument and a URL the session
 * never saw stay so until a person (or a search) changes something.
 */
const NEVER_RETRYABLE_CODES: ReadonlySet<WebErrorCode> = new Set(['WEB_PROVIDER_AUTH_FAILED', 'WEB_PROVIDER_QUOTA_EXHAUSTED', 'INVALID_ARGUMENT', 'WEB_URL_NOT_IN_CONTEXT'])

/** Whether an HTTP status says that the same request may succeed later. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || (status >= 500 && status <= 599)
}

/**
 * The web family's error: a `CodedError` whose code is one of the closed union.
 * `retryable` is decided here, once for every provider: never for a code that
 * no repetition fixes; else by the HTTP status when there is one (a 400 is
 * never worth repeating, whatever the code); else by the code. Providers give
 * the status and their own code in `details` and choose the code; they do not
 * work `retryable` out again.
 */
export class WebError extends CodedError<WebErrorCode, WebErrorDetails> {
  readonly [brand] = true

  constructor(code: WebErrorCode, message?: string, options: WebErrorOptions = {}) {
    const status = options.details?.status
    super(code, message ?? WEB_ERROR_MESSAGES[code], {
      ...options,
      retryable: options.retryable ?? isRetryable(code, status),
    })
    this.name = 'WebError'
  }

  /** Recognises a WebError from any copy of this package. */
  static override is(value: unknown): value is WebError {
    return typeof value === 'object' && value !== null && (value as any)[brand] === true
  }
}

/** The seam's one rule for `retryable` (see WebError). */
function isRetryable(code: WebErrorCode, status: number | undefined): boolean {
  if (NEVER_RETRYABLE_CODES.has(code)) return false
  return typeof status === 'number' ? isRetryableStatus(status) : RETRYABLE_CODES.has(code)
}

/** A URL fit for `details` and messages: no userinfo, no query, no fragment. */
export function redactUrl(input: string | URL): string {
  try {
    const url = new URL(String(input))
    url.username = ''
    url.password = ''
    url.search = ''
    url.hash = ''
    return url.href
  } catch {
    return '<unparseable url>'
  }
}

/** Turns an aborted signal's reason into WEB_TIMEOUT or WEB_ABORTED. */
export function abortError(signal: AbortSignal, what = 'The web request'): WebError {
  const reason = signal.reason
  if (WebError.is(reason)) return reason
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new WebError('WEB_TIMEOUT', `${what} took longer than its deadline.`, { cause: reason })
  }
  return new WebError('WEB_ABORTED', `${what} was cancelled.`, { cause: reason })
}
