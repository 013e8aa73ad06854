import { Agent, type Dispatcher } from 'undici'
import { abortError, redactUrl, WebError } from 'dsh-web'
import type { CredentialRequest, JsonValue, ProviderCall, ResolvedCredential, SearchProvider, SearchRequest, SearchResult } from 'dsh-web'
import { fromOpenAIError } from './openai-error.js'
import { fromOpenAIResponse } from './from-openai-response.js'
import { headerValue, postJson } from './http-transport.js'
import { parseOpenAIErrorBody, parseOpenAIResponse, type OpenAISearchContextSize } from './openai-responses-api.js'
import { openAIResponsesEndpoint, toOpenAIRequest } from './to-openai-request.js'

export const OPENAI_PROVIDER_ID = 'openai-official'
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com'
/** Read when the row sets no baseURL. */
export const OPENAI_BASE_URL_ENV = 'OPENAI_SEARCH_BASE_URL'
export const OPENAI_REQUEST_EVENT = 'web/openai-search-llm-request'

export interface OpenAISearchSettings {
  /** Name of the credential, resolved at every search. */
  apiKeyEnv?: string
  /** A literal key, the last resort. */
  apiKey?: string
  baseURL?: string
  model: string
  searchContextSize?: OpenAISearchContextSize
  /** Sent as OpenAI-Organization when set. */
  organization?: string
  /** Sent as OpenAI-Project when set. */
  project?: string
  /** Deadline of one search, retries and their waits included. */
  timeoutMs: number
  /** At most 2. */
  maxRetries?: number
  maxResponseBytes?: number
}

export interface OpenAISearchDeps {
  /** The seam's per-call credential helper, bound to a context by the plugin. */
  resolveCredential(request: CredentialRequest): Promise<ResolvedCredential>
  /** Where OPENAI_SEARCH_BASE_URL is read; process.env by default. */
  env?: Record<string, string | undefined>
  /** A dispatcher of the caller's; by default the provider owns an Agent. */
  dispatcher?: Dispatcher
  /** The wait between attempts (tests record it instead of asserting time). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

export interface OpenAISearchProvider extends SearchProvider {
  /** Closes the provider's own connections. */
  close(): Promise<void>
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createOpenAISearch(settings: OpenAISearchSettings, deps: OpenAISearchDeps): OpenAISearchProvider {
  const ownDispatcher = deps.dispatcher ? undefined : new Agent({ connect: { timeout: 15_000 } })
  const dispatcher = deps.dispatcher ?? ownDispatcher!
  const env = deps.env ?? process.env

  function baseURL(): string {
    return settings.baseURL || env[OPENAI_BASE_URL_ENV] || DEFAULT_OPENAI_BASE_URL
  }

  function endpoint(): URL {
    try {
      return openAIResponsesEndpoint(baseURL())
    } catch (error) {
      throw new WebError('WEB_PROVIDER_UNAVAILABLE', `The OpenAI search base URL is not a valid URL; set baseURL or ${OPENAI_BASE_URL_ENV}.`, {
        details: { providerId: OPENAI_PROVIDER_ID },
        cause: error,
        retryable: false,
      })
    }
  }

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    if (typeof request?.query !== 'string' || !request.query.trim()) {
      throw new WebError('INVALID_ARGUMENT', 'A search needs a non-empty query.', { details: { providerId: OPENAI_PROVIDER_ID, argument: 'query' } })
    }
    const signal = AbortSignal.any([call.signal, AbortSignal.timeout(settings.timeoutMs)])
    // The earlier of this provider's own deadline and the caller's, when it gave one.
    const deadline = Math.min(Date.now() + settings.timeoutMs, call.deadline ?? Number.POSITIVE_INFINITY)
    const url = endpoint()
    const credential = await deps.resolveCredential({
      providerId: OPENAI_PROVIDER_ID,
      ref: settings.apiKeyEnv || undefined,
      literal: settings.apiKey || undefined,
      literalKey: 'apiKey',
      signal,
    })
    if (signal.aborted) throw abortError(signal, 'The OpenAI search')

    const wire = toOpenAIRequest(request, settings)
    const body = JSON.stringify(wire.body)
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${credential.value}`,
    }
    if (settings.organization) headers['openai-organization'] = settings.organization
    if (settings.project) headers['openai-project'] = settings.project
    const answer = await postJson({
      providerId: OPENAI_PROVIDER_ID,
      providerName: 'OpenAI',
      endpoint: url,
      headers,
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
          providerId: OPENAI_PROVIDER_ID,
          endpoint: redactUrl(url),
          attempt: attempt + 1,
          body: JSON.parse(body) as JsonValue,
        }
        if (call.callId) data.callId = call.callId
        await call.session.append(OPENAI_REQUEST_EVENT, data, { visibility: 'log' })
      },
      toError: (answer) => fromOpenAIError(answer, { providerId: OPENAI_PROVIDER_ID, endpoint: url, secret: credential.value, credential: describeCredential(settings, credential) }),
    })

    const parsed = parseOpenAIResponse(answer.text)
    if (!parsed.ok) {
      const errorBody = parseOpenAIErrorBody(answer.text)
      if (typeof errorBody?.error?.message === 'string' && errorBody.error.message) {
        // An error envelope under a 2xx status (some gateways do this): the provider's word, not a format problem.
        throw fromOpenAIError(answer, { providerId: OPENAI_PROVIDER_ID, endpoint: url, secret: credential.value, credential: describeCredential(settings, credential) })
      }
      const type = headerValue(answer.headers, 'content-type')?.split(';')[0]
      throw new WebError('WEB_PROVIDER_BAD_RESPONSE', `OpenAI answered HTTP ${answer.status} but ${parsed.reason}${type ? ` (${type})` : ''}; expected a Responses API response.`, {
        details: { providerId: OPENAI_PROVIDER_ID, status: answer.status, ...(type ? { contentType: type } : {}) },
        retryable: false,
      })
    }
    const mapped = fromOpenAIResponse(parsed.response, OPENAI_PROVIDER_ID)
    const result: SearchResult = {
      providerId: OPENAI_PROVIDER_ID,
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
    id: OPENAI_PROVIDER_ID,
    available() {
      if (!settings.apiKeyEnv && !settings.apiKey) return false
      try {
        openAIResponsesEndpoint(baseURL())
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
