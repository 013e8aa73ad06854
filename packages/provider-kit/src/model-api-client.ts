import { createHash } from 'node:crypto'
/**
 * What every model-API search provider repeats: one client per provider
 * instance (its connections, base URL, availability) and, per search, the
 * credential, the deadline and the transport bound to them.
 */
import type { Agent, Dispatcher, ProxyAgent } from 'undici'
import type { JsonValue, ResolvedCredential } from 'dsh-host'
import { HostNameError, canonicalHost, describeTunnelFailure, readProxySettings, type Route } from 'dsh-host'
import { abortError, type CredentialRequest, type HopRoute, describeCredentialSource, type ProviderCall, redactUrl, routeFor, type SearchProvider, type SearchRequest, WebError } from 'dsh-web'
import { headerValue, type HttpAnswer, type JsonRequestOptions, type ProviderErrorContext, requestJson, type RetryNotice } from './transport.js'
import { scrubSecretDeep, scrubSecretFromError } from './scrub-secret.js'
import { createProxyDispatcher, loadUndici } from 'dsh-web-egress'

/** A vendor's search API as its provider package describes it. */
export interface ModelApi {
  providerId: string
  /** Human name of the provider for messages, e.g. DeepSeek. */
  providerName: string
  /** The environment variable read when the row sets no baseURL. */
  baseURLEnv: string
  /** The public endpoint's base; none for a self-hosted API, whose base URL the operator must give. */
  defaultBaseURL?: string
  /**
   * `required` (the default): a credential reference or literal must be
   * configured and resolve at every search. `optional`: an API that works
   * without one (a self-hosted instance); a configured reference must still resolve.
   */
  credential?: 'required' | 'optional'
  /** The config key of the literal credential, as named in messages; `apiKey` by default. */
  literalKey?: string
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
  /** The proxy route; overrides HTTPS_PROXY, HTTP_PROXY and NO_PROXY (read from `deps.env`). */
  proxy?: ModelSearchProxy
}

/** A provider row's `proxy` section (docs/security.md, "Through a proxy"). */
export interface ModelSearchProxy {
  /** The proxy for the endpoint, http://HOST:PORT. */
  url?: string
  /** Hosts that go direct, NO_PROXY entries. */
  noProxy?: string[]
  /** Name of a credential holding `user:password` for the proxy. */
  credential?: string
}

/** The route each call's requests take, for its log-only request events. */
/** Connection errors that, on the proxy route, can only be the proxy's. */
const PROXY_UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])

/** The code of the error a proxy pool throws once its tunnels failed PROXY_TUNNEL_ATTEMPTS times in a row (then WEB_PROXY_FAILED). */
const TUNNEL_GAVE_UP = 'DSH_PROXY_TUNNEL_GAVE_UP'

const callRoutes = new WeakMap<ProviderCall, { route: HopRoute; proxy?: string }>()

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
  /** What `startSearch` does for `dsh doctor`'s check, which has no query: the deadline, the endpoint, this call's credential. */
  startCheck(call: ProviderCall): Promise<ModelApiCall>
  /** Closes the provider's own connections; a dispatcher the caller gave stays open. */
  close(): Promise<void>
}

/** One started search: its endpoint and key, and the transport bound to them. */
export interface ModelApiCall {
  readonly endpoint: URL
  /** The credential of this call; undefined only for an API whose credential is optional and none is configured. */
  readonly credential: ResolvedCredential | undefined
  /** The key's value for the request headers ('' when there is no credential). */
  readonly apiKey: string
  /** For the vendor's error mapping; names where the key came from, never the key. */
  readonly errorContext: ProviderErrorContext
  /** `requestJson` with this call's key, signal, deadline, retries, dispatcher, size cap and sleep; the endpoint unless the vendor gives its own URL (e.g. with a query string); the key is scrubbed from what it throws. */
  request(options: Pick<JsonRequestOptions, 'method' | 'headers' | 'body' | 'beforeDispatch' | 'toError' | 'toRedirectError'> & { url?: URL }): Promise<HttpAnswer>
  /** `readSuccessBody` for this provider; every string of the body, and of what it throws, has the key scrubbed. */
  readSuccessBody<T>(answer: HttpAnswer, options: Omit<ReadSuccessBodyOptions<T>, 'providerId' | 'providerName'>): T
}

export function createModelApiClient(api: ModelApi, settings: ModelSearchSettings, deps: ModelSearchDeps): ModelApiClient {
  const { providerId, providerName } = api
  // The provider's own Agent, made on the first request (undici loads then, not at start).
  let ownDispatcher: Agent | undefined
  const env = deps.env ?? process.env
  const credentialRequired = (api.credential ?? 'required') === 'required'
  // The route to the endpoint: the same chooseRoute as the fetch provider; one ProxyAgent per proxy and credential.
  const proxySettings = readProxySettings(env, settings.proxy ?? {})
  const proxyAgents = new Map<string, Promise<ProxyAgent>>()

  /**
   * The endpoint's route, its host first made canonical in place (what NO_PROXY
   * compares and what is sent); a base URL whose host has no canonical form is
   * INVALID_ARGUMENT naming the provider.
   */
  function routeOf(url: URL): Route {
    try {
      const host = canonicalHost(url.hostname)
      if (host !== url.hostname) url.hostname = host
    } catch (error) {
      if (!HostNameError.is(error)) throw error
      throw new WebError('INVALID_ARGUMENT', `The ${providerName} endpoint ${redactUrl(url)}: ${error.message} Fix the base URL.`, { cause: error, details: { providerId } })
    }
    return routeFor(url, proxySettings)
  }

  async function routeDispatcher(url: URL, signal: AbortSignal, call: ProviderCall): Promise<{ dispatcher: Dispatcher; route: Route }> {
    const route = routeOf(url)
    callRoutes.set(call, route.kind === 'proxy' ? { route: 'proxy', proxy: route.origin } : { route: 'direct' })
    if (deps.dispatcher) return { dispatcher: deps.dispatcher, route }
    const undici = await loadUndici()
    if (route.kind === 'direct') return { dispatcher: (ownDispatcher ??= new undici.Agent({ connect: { timeout: 15_000 } })), route }
    const ref = settings.proxy?.credential
    const credential = ref ? (await deps.resolveCredential({ providerId, ref, literalKey: 'proxy.credential', signal })).value : undefined
    const key = `${route.url.href}\n${credential ?? ''}`
    let agent = proxyAgents.get(key)
    if (!agent) {
      // The egress library's hop, with undici's own connection count (searches run side by side) and tunnels bounded per request: what it throws after PROXY_TUNNEL_ATTEMPTS becomes WEB_PROXY_FAILED in proxyFailure.
      // Kept as a promise, so that searches starting together share one agent.
      const gaveUp = (attempts: number, error: unknown) => Object.assign(new Error(describeTunnelFailure(error), { cause: error }), { code: TUNNEL_GAVE_UP, attempts })
      agent = createProxyDispatcher({ url: route.url, credential, setting: route.setting }, { connectMs: 15_000 }, undefined, { connections: undefined, gaveUp }).then((hop) => hop.agent)
      proxyAgents.set(key, agent)
    }
    return { dispatcher: await agent, route }
  }

  /**
   * A request that failed at the proxy, not at the API: the proxy could not
   * be reached, or it refused the tunnel. Through a CONNECT tunnel the only
   * socket this process opens is the proxy's, so a connection error is the
   * proxy's; the API's own failures come back as the proxy's answer to the
   * CONNECT (undici: "Proxy response (502) !== 200").
   */
  function proxyFailure(error: unknown, route: Route, target: URL): WebError | undefined {
    if (route.kind !== 'proxy' || !WebError.is(error) || error.code !== 'WEB_PROVIDER_ERROR' || error.details.status !== undefined) return undefined
    const cause = error.cause as { code?: unknown; message?: unknown } | undefined
    const answered = /Proxy response \((\d{3})\)/.exec(String(cause?.message ?? ''))
    const code = typeof cause?.code === 'string' ? cause.code : undefined
    const change = `check that it runs, or change ${route.setting === 'proxy.url' ? `proxy.url in the ${providerId} row` : `the environment variable ${route.setting}`} (proxy.noProxy or NO_PROXY sends a host direct)`
    if (code === TUNNEL_GAVE_UP) {
      const attempts = (cause as { attempts?: number }).attempts ?? 0
      return new WebError('WEB_PROXY_FAILED', `The proxy ${route.origin} ${String(cause?.message)} for ${providerName} at ${redactUrl(target)}, ${attempts} times in a row; it is not tried again for this search: ${change}.`, {
        cause: error,
        details: { providerId, proxy: route.origin, attempts },
        retryable: true,
      })
    }
    if (!answered && !(code && PROXY_UNREACHABLE.has(code))) return undefined
    const status = answered ? Number(answered[1]) : undefined
    const why = status === undefined ? `could not be reached (${code})`
      : status === 407 || status === 401 ? `refused the credentials or asked for them (${status}); set proxy.credential in the ${providerId} row, or the user:password in the proxy URL`
      : `refused the tunnel with ${status}`
    return new WebError('WEB_PROXY_FAILED', `The proxy ${route.origin} ${why} for ${providerName} at ${redactUrl(target)}; ${change}.`, {
      cause: error,
      details: { providerId, proxy: route.origin, ...(status === undefined ? {} : { status }) },
      retryable: status === undefined || status >= 500,
    })
  }

  /** The base URL in effect and the setting it came from, as named in messages. */
  /** The base URL in effect and the setting it came from; undefined when none is set and there is no default. */
  function baseURL(): { value: string; origin: string } | undefined {
    if (settings.baseURL) return { value: settings.baseURL, origin: 'baseURL' }
    const fromEnv = env[api.baseURLEnv]
    if (fromEnv) return { value: fromEnv, origin: api.baseURLEnv }
    if (api.defaultBaseURL) return { value: api.defaultBaseURL, origin: 'the default base URL' }
    return undefined
  }

  function endpoint(): URL {
    const base = baseURL()
    if (!base) throw new TypeError('no base URL is configured')
    return api.endpoint(base.value)
  }

  /** Why no endpoint builds from the base URL in effect; undefined when one does. */
  function baseURLProblem(): string | undefined {
    const base = baseURL()
    if (!base) return `no base URL is configured; set baseURL in the row or the environment variable ${api.baseURLEnv}`
    const { value, origin } = base
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
    if (credentialRequired && !settings.apiKeyEnv && !settings.apiKey) problems.push('no credential reference (apiKeyEnv) or literal apiKey is configured')
    const base = baseURLProblem()
    if (base) problems.push(base)
    return problems.length ? problems.join('; ') : undefined
  }

  async function startSearch(request: SearchRequest, call: ProviderCall): Promise<ModelApiCall> {
    if (typeof request?.query !== 'string' || !request.query.trim()) {
      throw new WebError('INVALID_ARGUMENT', 'A search needs a non-empty query.', { details: { providerId, argument: 'query' } })
    }
    return startCall(call)
  }

  async function startCall(call: ProviderCall): Promise<ModelApiCall> {
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
      })
    }
    // An optional credential is looked up only when the row names one; a named one must then resolve.
    const credential = credentialRequired || settings.apiKeyEnv || settings.apiKey
      ? await deps.resolveCredential({
          providerId,
          ref: settings.apiKeyEnv || undefined,
          literal: settings.apiKey || undefined,
          literalKey: api.literalKey ?? 'apiKey',
          signal,
        })
      : undefined
    const { dispatcher: callDispatcher, route } = await routeDispatcher(url, signal, call)
    if (signal.aborted) throw abortError(signal, `The ${providerName} search`)
    const secret = credential?.value ?? ''
    return {
      endpoint: url,
      credential,
      apiKey: secret,
      errorContext: {
        providerId,
        endpoint: url,
        secret,
        ...(credential ? { credential: describeCredentialSource(credential, settings.apiKeyEnv, api.literalKey) } : {}),
      },
      request: ({ url: target, ...options }) =>
        requestJson({
          ...options,
          providerId,
          providerName,
          endpoint: target ?? url,
          secret,
          signal,
          deadline,
          maxRetries: settings.maxRetries,
          dispatcher: callDispatcher,
          maxResponseBytes: settings.maxResponseBytes,
          sleep: deps.sleep,
          onRetry: (notice) => announceRetry(call, notice),
        }).catch((error: unknown) => {
          throw scrubSecretFromError(proxyFailure(error, route, target ?? url) ?? error, secret)
        }),
      readSuccessBody: (answer, options) => {
        try {
          return scrubSecretDeep(readSuccessBody(answer, { ...options, providerId, providerName }), secret)
        } catch (error) {
          throw scrubSecretFromError(error, secret)
        }
      },
    }
  }

  return {
    available: () => unavailableReason() === undefined,
    unavailableReason,
    startSearch,
    startCheck: startCall,
    async close() {
      await Promise.all([ownDispatcher?.close(), ...[...proxyAgents.values()].map(async (agent) => (await agent).close())])
      proxyAgents.clear()
    },
  }
}

/**
 * Appends the log-only event of one HTTP attempt to the call's session (none
 * without a session), with the call's `callId` when it has one. `data` is built
 * only when there is a session; it holds identifiers and the body, never
 * headers or keys. The call's `onRequestLogged` then hears where the log
 * holds it (session, sequence number, the SHA-256 of the data as logged).
 */
export async function appendRequestEvent(call: ProviderCall, type: string, data: () => { [key: string]: JsonValue }): Promise<void> {
  if (!call.session) return
  const event = data()
  if (call.callId) event.callId = call.callId
  // The route this call's requests take (direct, or the proxy's origin without credentials).
  const taken = callRoutes.get(call)
  if (taken) Object.assign(event, taken)
  const logged = await call.session.append(type, event, { visibility: 'log' })
  call.onRequestLogged?.({ session: call.session.id, seq: logged.seq, type, sha256: createHash('sha256').update(JSON.stringify(event)).digest('hex') })
}

/** The event a retry wait appends to the call's session, so a host can show it (docs/events.md). */
export const RETRY_EVENT = 'web/provider-retry-wait'

/** Appends a retry about to wait to the call's session (log-only; none without a session), not awaited: the wait must not wait for the log. */
function announceRetry(call: ProviderCall, notice: RetryNotice): void {
  if (!call.session) return
  const data: { [key: string]: JsonValue } = { ...notice }
  if (call.callId) data.callId = call.callId
  call.session.append(RETRY_EVENT, data, { visibility: 'log' }).catch(() => {})
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
  /** The vendor's error mapping, as given to `requestJson`. */
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
    },
  )
}
