/**
 * The transport every model-API provider shares: one JSON POST with bounded
 * retries, a size cap, no redirects, and the key scrubbed from what is quoted.
 * Vendor specifics (wire types, error mapping) stay in each provider.
 */

import type { Dispatcher } from 'undici'
import { abortError, redactUrl, WebError } from 'dsh-web'
import { loadUndici } from 'dsh-web-egress'


/** Retries after the first attempt, at most (and by default). */
export const MAX_RETRIES = 2

/** Largest answer body accepted when the caller sets no limit: 8 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024

export interface HttpAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The body as text (UTF-8). */
  text: string
}

export interface JsonRequestOptions {
  providerId: string
  /** Human name of the provider for messages, e.g. DeepSeek. */
  providerName: string
  endpoint: URL
  /** POST (the default) or GET, for an API that takes its request in the query string. */
  method?: 'GET' | 'POST'
  /** Sent as is; never logged, never put in errors. */
  headers: Record<string, string>
  /** The exact bytes sent with a POST; none with a GET. */
  body?: string
  /** Scrubbed from every message built from the provider's answer. */
  secret: string
  signal: AbortSignal
  /** Epoch ms after which no retry wait may end. */
  deadline: number
  /** Clamped to MAX_RETRIES, which is also the default. */
  maxRetries?: number
  dispatcher: Dispatcher
  /** Largest body accepted, in bytes; DEFAULT_MAX_RESPONSE_BYTES by default. */
  maxResponseBytes?: number
  beforeDispatch(attempt: number): Promise<void>
  /** Turns a non-2xx, non-3xx answer into the error to throw (or to retry on). */
  toError(answer: HttpAnswer): WebError
  /**
   * The vendor's reading of a redirect it recognises (e.g. a self-hosted
   * instance's bot check sending the client to its front page); undefined for
   * the default refusal. Either way the redirect is never followed.
   */
  toRedirectError?(answer: HttpAnswer, target: URL | undefined): WebError | undefined
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  /**
   * Told before each retry wait starts: which answer is retried, how long the
   * wait is and why. For a progress line or a log; what it throws is ignored,
   * so a listener can never change the call's outcome.
   */
  onRetry?(notice: RetryNotice): void
}

/** One retry about to wait: the answer that caused it and the wait. */
export interface RetryNotice {
  providerId: string
  providerName: string
  /** 1 for the first retry. */
  retry: number
  maxRetries: number
  waitMs: number
  /** Where the wait came from: the server's retry-after (or retry-after-ms), or the kit's backoff. */
  waitFrom: 'retry-after' | 'backoff'
  status: number
  /** The error code of the answer retried, e.g. WEB_PROVIDER_RATE_LIMITED. */
  code: string
  /** In words, for a person: "DeepSeek answered HTTP 429 (rate limited)". */
  reason: string
}

/** What a vendor's error mapping needs besides the answer. */
export interface ProviderErrorContext {
  providerId: string
  endpoint: URL
  /** The key of this call, scrubbed from anything quoted. */
  secret: string
  /** Where the key came from, named in auth failures, e.g. "DEEPSEEK_API_KEY from the credentials store". */
  credential?: string
}

/** Delay before the n-th retry when the server did not say (1-based). */
export function backoffMs(retry: number): number {
  return 500 * 2 ** (retry - 1)
}

/**
 * One request to a provider's JSON API with bounded retries. Knows nothing about the
 * wire format: the caller turns error answers into a `WebError` and decides
 * what a successful body means.
 *
 * - never follows a redirect (the key would travel with it);
 * - retries at most `maxRetries` times (clamped to 2), only for 429 (not a
 *   quota refusal) and 5xx/529 whose error the vendor did not mark
 *   `retryable: false`, and only when the wait ends before `deadline`;
 * - calls `beforeDispatch(attempt)` immediately before each HTTP attempt, so a
 *   call that ends before dispatch leaves no trace, and `onRetry(notice)`
 *   before each retry wait, saying how long it is and why;
 * - the signal aborts the socket, the body read and any retry wait.
 */
export async function requestJson(options: JsonRequestOptions): Promise<HttpAnswer> {
  const { signal, endpoint } = options
  const maxRetries = Math.max(0, Math.min(MAX_RETRIES, Math.floor(options.maxRetries ?? MAX_RETRIES)))
  const sleep = options.sleep ?? sleepWithSignal
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw abortError(signal, `The ${options.providerName} search`)
    await options.beforeDispatch(attempt)
    if (signal.aborted) throw abortError(signal, `The ${options.providerName} search`)
    const answer = await sendOnce(options)
    if (answer.status >= 200 && answer.status < 300) return answer
    if (answer.status >= 300 && answer.status < 400) throw redirectRefused(answer, options)
    const error = options.toError(answer)
    if (!isRetriedStatus(answer.status, error) || attempt >= maxRetries) {
      if (attempt > 0) error.details.attempts = attempt + 1
      throw error
    }
    const retryAfterMs = error.details.retryAfterMs ?? parseRetryAfter(answer.headers)
    const wait = retryAfterMs ?? backoffMs(attempt + 1)
    if (Date.now() + wait >= options.deadline) {
      error.details.attempts = attempt + 1
      throw error
    }
    notifyRetry(options, {
      providerId: options.providerId,
      providerName: options.providerName,
      retry: attempt + 1,
      maxRetries,
      waitMs: wait,
      waitFrom: retryAfterMs === undefined ? 'backoff' : 'retry-after',
      status: answer.status,
      code: error.code,
      reason: `${options.providerName} answered HTTP ${answer.status}${answer.status === 429 ? ' (rate limited)' : ' (server error)'}`,
    })
    await sleep(wait, signal).catch(() => {
      throw abortError(signal, `The ${options.providerName} search`)
    })
  }
}

function notifyRetry(options: JsonRequestOptions, notice: RetryNotice): void {
  try {
    options.onRetry?.(notice)
  } catch {
    // A listener's failure is its own: the call goes on as if nobody listened.
  }
}

/**
 * A redirect is never followed (the key would travel with it). A `Location`
 * that is not a URL is not a redirect anyone can act on: the answer is not the
 * documented format.
 */
function redirectRefused(answer: HttpAnswer, options: JsonRequestOptions): WebError {
  const { endpoint, providerName } = options
  const details = { providerId: options.providerId, url: redactUrl(endpoint), status: answer.status }
  const location = headerValue(answer.headers, 'location')
  let target: URL | undefined
  if (location !== undefined) {
    try {
      target = new URL(location, endpoint)
    } catch {
      return new WebError(
        'WEB_PROVIDER_BAD_RESPONSE',
        `${providerName} answered HTTP ${answer.status} with a Location header that is not a URL (${JSON.stringify(location.slice(0, 80))}); ` +
          'check that baseURL points at the provider\'s API endpoint.',
        { details },
      )
    }
  }
  const vendorError = options.toRedirectError?.(answer, target)
  if (vendorError) return vendorError
  return new WebError(
    'WEB_REDIRECT_BLOCKED',
    `${providerName} answered HTTP ${answer.status} with a redirect${target ? ` to ${redactUrl(target)}` : ''}; ` +
      'redirects are never followed (the key would travel with them). Point baseURL at the final endpoint.',
    { details },
  )
}

/** 429 unless it is a quota refusal, and every 5xx (529 included), unless the vendor says a retry will not help. */
function isRetriedStatus(status: number, error: WebError): boolean {
  if (!error.retryable) return false
  if (status === 429) return error.code === 'WEB_PROVIDER_RATE_LIMITED'
  return status >= 500 && status <= 599
}

async function sendOnce(options: JsonRequestOptions): Promise<HttpAnswer> {
  const { signal, endpoint, providerName } = options
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  let response: Dispatcher.ResponseData
  const { request } = await loadUndici()
  try {
    response = await request(endpoint, {
      method: options.method ?? 'POST',
      headers: options.headers,
      body: options.method === 'GET' ? undefined : options.body,
      signal,
      dispatcher: options.dispatcher,
    })
  } catch (error) {
    if (signal.aborted) throw abortError(signal, `The ${providerName} search`)
    throw new WebError('WEB_PROVIDER_ERROR', `${providerName} could not be reached at ${redactUrl(endpoint)}: ${describeNetworkError(error)}.`, {
      details: { providerId: options.providerId, url: redactUrl(endpoint) },
      cause: error,
    })
  }
  const chunks: Buffer[] = []
  let bytes = 0
  try {
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer
      bytes += buffer.length
      if (bytes > maxResponseBytes) {
        response.body.destroy()
        // Not retryable whatever the status (the seam's rule would retry a 5xx): the same request brings the same oversized body.
        throw new WebError('WEB_PROVIDER_BAD_RESPONSE', `${providerName} answered with more than ${maxResponseBytes} bytes.`, {
          details: { providerId: options.providerId, url: redactUrl(endpoint), status: response.statusCode, limit: maxResponseBytes },
          retryable: false,
        })
      }
      chunks.push(buffer)
    }
  } catch (error) {
    if (signal.aborted) throw abortError(signal, `The ${providerName} search`)
    if (WebError.is(error)) throw error
    throw new WebError(
      'WEB_PROVIDER_BAD_RESPONSE',
      `${providerName} answered HTTP ${response.statusCode} but the body was cut off after ${bytes} bytes: ${describeNetworkError(error)}.`,
      { details: { providerId: options.providerId, url: redactUrl(endpoint), status: response.statusCode }, cause: error, retryable: false },
    )
  }
  return { status: response.statusCode, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }
}

export function headerValue(headers: HttpAnswer['headers'], name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** `retry-after-ms`, then `retry-after` in seconds or as an HTTP date. */
export function parseRetryAfter(headers: HttpAnswer['headers'], now = Date.now()): number | undefined {
  const ms = Number(headerValue(headers, 'retry-after-ms'))
  if (headerValue(headers, 'retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms)
  const raw = headerValue(headers, 'retry-after')?.trim()
  if (!raw) return undefined
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000)
  const date = Date.parse(raw)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' ? `${code} (${error.message})` : error.message
  }
  return String(error)
}

function sleepWithSignal(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

