import { Agent, type Dispatcher } from 'undici'
import { abortError, redactUrl, WebError } from 'dsh-web'
import type { CredentialRequest, JsonValue, ProviderCall, ResolvedCredential, SearchProvider, SearchRequest, SearchResult } from 'dsh-web'
import { parseDeepSeekErrorBody, parseDeepSeekMessagesResponse } from './deepseek-messages-api.js'
import { fromDeepSeekError } from './deepseek-error.js'
import { fromDeepSeekResponse } from './from-deepseek-response.js'
import { headerValue, postJson } from './http-transport.js'
import { deepSeekMessagesEndpoint, toDeepSeekRequest } from './to-deepseek-request.js'

export const DEEPSEEK_PROVIDER_ID = 'deepseek-official'
export const DEFAULT_DEEPSEEK_BASE_URL = 'https://api.deepseek.com/anthropic'
/** Read when the row sets no baseURL. DEEPSEEK_BASE_URL belongs to chat completions and is never read. */
export const DEEPSEEK_BASE_URL_ENV = 'DEEPSEEK_SEARCH_BASE_URL'
export const DEEPSEEK_REQUEST_EVENT = 'web/deepseek-search-llm-request'

export interface DeepSeekSearchSettings {
  /** Name of the credential, resolved at every search. */
  apiKeyEnv?: string
  /** A literal key, the last resort. */
  apiKey?: string
  baseURL?: string
  model: string
  maxTokens: number
  maxUses: number
  apiVersion: string
  /** Deadline of one search, retries and their waits included. */
  timeoutMs: number
  /** At most 2. */
  maxRetries?: number
  maxResponseBytes?: number
}

export interface DeepSeekSearchDeps {
  /** The seam's per-call credential helper, bound to a context by the plugin. */
  resolveCredential(request: CredentialRequest): Promise<ResolvedCredential>
  /** Where DEEPSEEK_SEARCH_BASE_URL is read; process.env by default. */
  env?: Record<string, string | undefined>
  /** A dispatcher of the caller's; by default the provider owns an Agent. */
  dispatcher?: Dispatcher
  /** The wait between attempts (tests record it instead of asserting time). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

export interface DeepSeekSearchProvider extends SearchProvider {
  /** Closes the provider's own connections. */
  close(): Promise<void>
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createDeepSeekSearch(settings: DeepSeekSearchSettings, deps: DeepSeekSearchDeps): DeepSeekSearchProvider {
  const ownDispatcher = deps.dispatcher ? undefined : new Agent({ connect: { timeout: 15_000 } })
  const dispatcher = deps.dispatcher ?? ownDispatcher!
  const env = deps.env ?? process.env

  function baseURL(): string {
    return settings.baseURL || env[DEEPSEEK_BASE_URL_ENV] || DEFAULT_DEEPSEEK_BASE_URL
  }

  function endpoint(): URL {
    try {
      return deepSeekMessagesEndpoint(baseURL())
    } catch (error) {
      throw new WebError('WEB_PROVIDER_UNAVAILABLE', `The DeepSeek search base URL is not a valid URL; set baseURL or ${DEEPSEEK_BASE_URL_ENV}.`, {
        details: { providerId: DEEPSEEK_PROVIDER_ID },
        cause: error,
        retryable: false,
      })
    }
  }

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    if (typeof request?.query !== 'string' || !request.query.trim()) {
      throw new WebError('INVALID_ARGUMENT', 'A search needs a non-empty query.', { details: { providerId: DEEPSEEK_PROVIDER_ID, argument: 'query' } })
    }
    const signal = AbortSignal.any([call.signal, AbortSignal.timeout(settings.timeoutMs)])
    // The earlier of this provider's own deadline and the caller's, when it gave one.
    const deadline = Math.min(Date.now() + settings.timeoutMs, call.deadline ?? Number.POSITIVE_INFINITY)
    const url = endpoint()
    const credential = await deps.resolveCredential({
      providerId: DEEPSEEK_PROVIDER_ID,
      ref: settings.apiKeyEnv || undefined,
      literal: settings.apiKey || undefined,
      literalKey: 'apiKey',
      signal,
    })
    if (signal.aborted) throw abortError(signal, 'The DeepSeek search')

    const wire = toDeepSeekRequest(request, settings)
    const body = JSON.stringify(wire.body)
    const answer = await postJson({
      providerId: DEEPSEEK_PROVIDER_ID,
      providerName: 'DeepSeek',
      endpoint: url,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-api-key': credential.value,
        'anthropic-version': settings.apiVersion,
      },
      body,
      secret: credential.value,
      signal,
      deadline,
      maxRetries: settings.maxRetries ?? 2,
      dispatcher,
      maxResponseBytes: settings.maxResponseBytes ?? 8 * 1024 * 1024,
      sleep: deps.sleep,
      async beforeDispatch(attempt) {
        if (!call.session) return
        const data: { [key: string]: JsonValue } = {
          providerId: DEEPSEEK_PROVIDER_ID,
          endpoint: redactUrl(url),
          apiVersion: settings.apiVersion,
          attempt: attempt + 1,
          body: JSON.parse(body) as JsonValue,
        }
        if (call.callId) data.callId = call.callId
        await call.session.append(DEEPSEEK_REQUEST_EVENT, data, { visibility: 'log' })
      },
      toError: (answer) => fromDeepSeekError(answer, { providerId: DEEPSEEK_PROVIDER_ID, endpoint: url, secret: credential.value, credential: describeCredential(settings, credential) }),
    })

    const parsed = parseDeepSeekMessagesResponse(answer.text)
    if (!parsed.ok) {
      const errorBody = parseDeepSeekErrorBody(answer.text)
      if (typeof errorBody?.error?.message === 'string' && errorBody.error.message) {
        // An error envelope under a 2xx status (some gateways do this): the provider's word, not a format problem.
        throw fromDeepSeekError(answer, { providerId: DEEPSEEK_PROVIDER_ID, endpoint: url, secret: credential.value, credential: describeCredential(settings, credential) })
      }
      const type = headerValue(answer.headers, 'content-type')?.split(';')[0]
      throw new WebError('WEB_PROVIDER_BAD_RESPONSE', `DeepSeek answered HTTP ${answer.status} but ${parsed.reason}${type ? ` (${type})` : ''}; expected a Messages API response.`, {
        details: { providerId: DEEPSEEK_PROVIDER_ID, status: answer.status, ...(type ? { contentType: type } : {}) },
        retryable: false,
      })
    }
    const mapped = fromDeepSeekResponse(parsed.response, DEEPSEEK_PROVIDER_ID)
    const result: SearchResult = {
      providerId: DEEPSEEK_PROVIDER_ID,
      query: request.query,
      queries: mapped.queries,
      sources: mapped.sources,
      filters: wire.filters,
      warnings: mapped.warnings,
    }
    if (mapped.answer) result.answer = mapped.answer
    if (mapped.usage) result.usage = mapped.usage
    return result
  }

  return {
    id: DEEPSEEK_PROVIDER_ID,
    available() {
      if (!settings.apiKeyEnv && !settings.apiKey) return false
      try {
        deepSeekMessagesEndpoint(baseURL())
        return true
      } catch {
        return false
      }
    },
    search,
    async close() {
      await ownDispatcher?.close()
    },
  }
}

/** Names the credential's origin for auth failures; never its value. */
function describeCredential(settings: { apiKeyEnv?: string }, credential: ResolvedCredential): string {
  switch (credential.source) {
    case 'store':
      return `${settings.apiKeyEnv} from the credentials store`
    case 'environment':
      return `${settings.apiKeyEnv} from the environment`
    case 'config':
      return 'the literal apiKey of the config row'
    default:
      return `${settings.apiKeyEnv ?? 'apiKey'} (${credential.source})`
  }
}
