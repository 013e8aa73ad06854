/**
 * `dsh-web/provider-http`: what the search provider packages share to call a
 * model API over HTTP. A subpath of its own, so that users of `dsh-web` alone
 * never load undici. Vendor specifics (wire types, error mapping) stay in each
 * provider; only logic that is the same for every vendor lives here.
 */

import { Agent, request, type Dispatcher } from 'undici'
import { abortError, redactUrl, WebError } from './errors.js'
import { describeCredentialSource, type CredentialRequest, type ResolvedCredential } from './credential.js'
import type { JsonValue, ProviderCall, SearchProvider, SearchRequest } from './types.js'

export type { Dispatcher } from 'undici'
export * from './provider-wire.js'

// ---------------------------------------------------------------- transport

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

export interface PostJsonOptions {
  providerId: string
  /** Human name of the provider for messages, e.g. DeepSeek. */
  providerName: string
  endpoint: URL
  /** Sent as is; never logged, never put in errors. */
  headers: Record<string, string>
  /** The exact bytes sent. */
  body: string
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
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
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
 * One JSON POST to a model API with bounded retries. Knows nothing about the
 * wire format: the caller turns error answers into a `WebError` and decides
 * what a successful body means.
 *
 * - never follows a redirect (the key would travel with it);
 * - retries at most `maxRetries` times (clamped to 2), only for 429 (not a
 *   quota refusal) and 5xx/529, and only when the wait ends before `deadline`;
 * - calls `beforeDispatch(attempt)` immediately before each HTTP attempt, so a
 *   call that ends before dispatch leaves no trace;
 * - the signal aborts the socket, the body read and any retry wait.
 */
export async function postJson(options: PostJsonOptions): Promise<HttpAnswer> {
  const { signal, endpoint } = options
  const maxRetries = Math.max(0, Math.min(MAX_RETRIES, Math.floor(options.maxRetries ?? MAX_RETRIES)))
  const sleep = options.sleep ?? sleepWithSignal
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw abortError(signal, `The ${options.providerName} search`)
    await options.beforeDispatch(attempt)
    if (signal.aborted) throw abortError(signal, `The ${options.providerName} search`)
    const answer = await sendOnce(options)
    if (answer.status >= 200 && answer.status < 300) return answer
    if (answer.status >= 300 && answer.status < 400) {
      const location = headerValue(answer.headers, 'location')
      throw new WebError(
        'WEB_REDIRECT_BLOCKED',
        `${options.providerName} answered HTTP ${answer.status} with a redirect${location ? ` to ${redactUrl(new URL(location, endpoint))}` : ''}; ` +
          `redirects are never followed (the key would travel with them). Point baseURL at the final endpoint.`,
        { details: { providerId: options.providerId, url: redactUrl(endpoint), status: answer.status }, retryable: false },
      )
    }
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
    await sleep(wait, signal).catch(() => {
      throw abortError(signal, `The ${options.providerName} search`)
    })
  }
}

/** 429 unless it is a quota refusal, and every 5xx (529 included). */
function isRetriedStatus(status: number, error: WebError): boolean {
  if (status === 429) return error.code === 'WEB_PROVIDER_RATE_LIMITED'
  return status >= 500 && status <= 599
}

async function sendOnce(options: PostJsonOptions): Promise<HttpAnswer> {
  const { signal, endpoint, providerName } = options
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  let response: Dispatcher.ResponseData
  try {
    response = await request(endpoint, {
      method: 'POST',
      headers: options.headers,
      body: options.body,
      signal,
      dispatcher: options.dispatcher,
    })
  } catch (error) {
    if (signal.aborted) throw abortError(signal, `The ${providerName} search`)
    throw new WebError('WEB_PROVIDER_ERROR', `${providerName} could not be reached at ${redactUrl(endpoint)}: ${describeNetworkError(error)}.`, {
      details: { providerId: options.providerId, url: redactUrl(endpoint) },
      cause: error,
      retryable: true,
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

/** Replaces every occurrence of the secret (when long enough to matter). */
export function scrubSecret(text: string, secret: string): string {
  if (!secret || secret.length < 4) return text
  return text.split(secret).join('[redacted]')
}

// ---------------------------------------------------------------- one model API, one search call

/** A vendor's model API as its provider package describes it. */
export interface ModelApi {
  providerId: string
  /** Human name of the provider for messages, e.g. DeepSeek. */
  providerName: string
  /** The environment variable read when the row sets no baseURL. */
  baseURLEnv: string
  defaultBaseURL: string
  /** The vendor's endpoint from a base URL; throws when none can be built from it. */
  endpoint(baseURL: string): URL
}

/** The settings every model-API search provider takes besides its vendor's own. */
export interface ModelSearchSettings {
  /** Name of the credential, resolved at every search. */
  apiKeyEnv?: string
  /** A literal key, the last resort. */
  apiKey?: string
  baseURL?: string
  /** Deadline of one search, retries and their waits included. */
  timeoutMs: number
  /** At most 2. */
  maxRetries?: number
  maxResponseBytes?: number
}

/** What a model-API search provider is given besides its settings. */
export interface ModelSearchDeps {
  /** The seam's per-call credential helper, bound to a context by the plugin. */
  resolveCredential(request: CredentialRequest): Promise<ResolvedCredential>
  /** Where the base URL variable (`ModelApi.baseURLEnv`) is read; process.env by default. */
  env?: Record<string, string | undefined>
  /** A dispatcher of the caller's; by default the provider owns an Agent. */
  dispatcher?: Dispatcher
  /** The wait between attempts (tests record it instead of asserting time). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

export interface ModelSearchProvider extends SearchProvider {
  /** Closes the provider's own connections. */
  close(): Promise<void>
}

/** What one provider instance keeps across searches: its settings, its connections. */
export interface ModelApiClient {
  /** Local, no network: a credential reference or literal, and a base URL the endpoint builds from. */
  available(): boolean
  /** Why `available()` is false (every problem, `; `-separated), naming the setting to fix; undefined when available. */
  unavailableReason(): string | undefined
  /**
   * Everything a search does before its vendor builds the request, in this
   * order: refuse an empty query (INVALID_ARGUMENT), start the deadline, build
   * the endpoint (WEB_PROVIDER_UNAVAILABLE when the base URL does not build),
   * resolve the credential for this very call, and stop when the call was
   * cancelled meanwhile. Nothing is dispatched yet.
   */
  startSearch(request: SearchRequest, call: ProviderCall): Promise<ModelApiCall>
  /** Closes the provider's own connections; a dispatcher the caller gave stays open. */
  close(): Promise<void>
}

/** One started search: its endpoint and key, and the transport bound to them. */
export interface ModelApiCall {
  readonly endpoint: URL
  readonly credential: ResolvedCredential
  /** For the vendor's error mapping; names where the key came from, never the key. */
  readonly errorContext: ProviderErrorContext
  /** `postJson` with this call's endpoint, key, signal, deadline, retries, dispatcher, size cap and sleep. */
  postJson(options: Pick<PostJsonOptions, 'headers' | 'body' | 'beforeDispatch' | 'toError'>): Promise<HttpAnswer>
  /** `readSuccessBody` for this provider. */
  readSuccessBody<T>(answer: HttpAnswer, options: Omit<ReadSuccessBodyOptions<T>, 'providerId' | 'providerName'>): T
}

export function createModelApiClient(api: ModelApi, settings: ModelSearchSettings, deps: ModelSearchDeps): ModelApiClient {
  const { providerId, providerName } = api
  const ownDispatcher = deps.dispatcher ? undefined : new Agent({ connect: { timeout: 15_000 } })
  const dispatcher = deps.dispatcher ?? ownDispatcher!
  const env = deps.env ?? process.env

  /** The base URL in effect and the setting it came from, as named in messages. */
  function baseURL(): { value: string; origin: string } {
    if (settings.baseURL) return { value: settings.baseURL, origin: 'baseURL' }
    const fromEnv = env[api.baseURLEnv]
    if (fromEnv) return { value: fromEnv, origin: api.baseURLEnv }
    return { value: api.defaultBaseURL, origin: 'the default base URL' }
  }

  function endpoint(): URL {
    return api.endpoint(baseURL().value)
  }

  /** Why no endpoint builds from the base URL in effect; undefined when one does. */
  function baseURLProblem(): string | undefined {
    const { value, origin } = baseURL()
    try {
      api.endpoint(value)
      return undefined
    } catch (error) {
      let parses = true
      try {
        new URL(value)
      } catch {
        parses = false
      }
      // A value that parses is shown without credentials, query or fragment; one that does not is shown as given.
      const shown = parses ? redactUrl(value) : value.length > 120 ? `${value.slice(0, 120)}…` : value
      const why = parses ? `cannot be used (${error instanceof Error ? error.message : String(error)})` : 'is not a valid URL'
      return `${origin} ${JSON.stringify(shown)} ${why}; set baseURL or ${api.baseURLEnv}`
    }
  }

  function unavailableReason(): string | undefined {
    const problems: string[] = []
    if (!settings.apiKeyEnv && !settings.apiKey) problems.push('no credential reference (apiKeyEnv) or literal apiKey is configured')
    const base = baseURLProblem()
    if (base) problems.push(base)
    return problems.length ? problems.join('; ') : undefined
  }

  async function startSearch(request: SearchRequest, call: ProviderCall): Promise<ModelApiCall> {
    if (typeof request?.query !== 'string' || !request.query.trim()) {
      throw new WebError('INVALID_ARGUMENT', 'A search needs a non-empty query.', { details: { providerId, argument: 'query' } })
    }
    const signal = AbortSignal.any([call.signal, AbortSignal.timeout(settings.timeoutMs)])
    // The earlier of this provider's own deadline and the caller's, when it gave one.
    const deadline = Math.min(Date.now() + settings.timeoutMs, call.deadline ?? Number.POSITIVE_INFINITY)
    let url: URL
    try {
      url = endpoint()
    } catch (error) {
      throw new WebError('WEB_PROVIDER_UNAVAILABLE', `The ${providerName} search is not available: ${baseURLProblem() ?? 'its base URL does not build an endpoint'}.`, {
        details: { providerId },
        cause: error,
        retryable: false,
      })
    }
    const credential = await deps.resolveCredential({
      providerId,
      ref: settings.apiKeyEnv || undefined,
      literal: settings.apiKey || undefined,
      literalKey: 'apiKey',
      signal,
    })
    if (signal.aborted) throw abortError(signal, `The ${providerName} search`)
    return {
      endpoint: url,
      credential,
      errorContext: { providerId, endpoint: url, secret: credential.value, credential: describeCredentialSource(credential, settings.apiKeyEnv) },
      postJson: (options) =>
        postJson({
          ...options,
          providerId,
          providerName,
          endpoint: url,
          secret: credential.value,
          signal,
          deadline,
          maxRetries: settings.maxRetries,
          dispatcher,
          maxResponseBytes: settings.maxResponseBytes,
          sleep: deps.sleep,
        }),
      readSuccessBody: (answer, options) => readSuccessBody(answer, { ...options, providerId, providerName }),
    }
  }

  return {
    available: () => unavailableReason() === undefined,
    unavailableReason,
    startSearch,
    async close() {
      await ownDispatcher?.close()
    },
  }
}

/**
 * Appends the log-only event of one HTTP attempt to the call's session (none
 * without a session), with the call's `callId` when it has one. `data` is built
 * only when there is a session; it holds identifiers and the body, never
 * headers or keys.
 */
export async function appendRequestEvent(call: ProviderCall, type: string, data: () => { [key: string]: JsonValue }): Promise<void> {
  if (!call.session) return
  const event = data()
  if (call.callId) event.callId = call.callId
  await call.session.append(type, event, { visibility: 'log' })
}

export interface ReadSuccessBodyOptions<T> {
  providerId: string
  /** Human name of the provider for messages, e.g. DeepSeek. */
  providerName: string
  /** What the body should have been, e.g. "a Messages API response". */
  expected: string
  /** The vendor's tolerant parser; `reason` completes "answered HTTP 200 but ...". */
  parse(text: string): { ok: true; response: T } | { ok: false; reason: string }
  /** The message of the vendor's error envelope, when the body is one. */
  errorMessage(text: string): unknown
  /** The vendor's error mapping, as given to `postJson`. */
  toError(answer: HttpAnswer): WebError
}

/**
 * A 2xx answer read with the vendor's parser. A body the parser refuses is
 * either an error envelope with a message (some gateways send one under a 2xx:
 * the provider's word, not a format problem), thrown as `toError` maps it, or
 * WEB_PROVIDER_BAD_RESPONSE naming the content type, never retryable.
 */
export function readSuccessBody<T>(answer: HttpAnswer, options: ReadSuccessBodyOptions<T>): T {
  const parsed = options.parse(answer.text)
  if (parsed.ok) return parsed.response
  const message = options.errorMessage(answer.text)
  if (typeof message === 'string' && message) throw options.toError(answer)
  const type = headerValue(answer.headers, 'content-type')?.split(';')[0]
  throw new WebError(
    'WEB_PROVIDER_BAD_RESPONSE',
    `${options.providerName} answered HTTP ${answer.status} but ${parsed.reason}${type ? ` (${type})` : ''}; expected ${options.expected}.`,
    {
      details: { providerId: options.providerId, status: answer.status, ...(type ? { contentType: type } : {}) },
      retryable: false,
    },
  )
}
