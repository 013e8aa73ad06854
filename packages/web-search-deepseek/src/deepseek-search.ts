import { redactUrl } from 'dsh-web'
import type { ProviderCall, SearchRequest, SearchResult } from 'dsh-web'
import type { JsonValue } from 'dsh-host'
import { appendRequestEvent, createModelApiClient, toSearchResult } from 'dsh-provider-kit'
import type { HttpAnswer, ModelApi, ModelSearchDeps, ModelSearchProvider, ModelSearchSettings } from 'dsh-provider-kit'
import { parseDeepSeekErrorBody, parseDeepSeekMessagesResponse } from './deepseek-messages-api.js'
import { fromDeepSeekError } from './deepseek-error.js'
import { fromDeepSeekResponse } from './from-deepseek-response.js'
import { deepSeekMessagesEndpoint, toDeepSeekRequest } from './to-deepseek-request.js'

export const DEEPSEEK_PROVIDER_ID = 'deepseek-official'
export const DEFAULT_DEEPSEEK_BASE_URL = 'https://api.deepseek.com/anthropic'
/** Read when the row sets no baseURL. DEEPSEEK_BASE_URL belongs to chat completions and is never read. */
export const DEEPSEEK_BASE_URL_ENV = 'DEEPSEEK_SEARCH_BASE_URL'
export const DEEPSEEK_REQUEST_EVENT = 'web/deepseek-search-llm-request'

export interface DeepSeekSearchSettings extends ModelSearchSettings {
  model: string
  maxTokens: number
  maxUses: number
  apiVersion: string
}

/** `env` is where DEEPSEEK_SEARCH_BASE_URL is read. */
export type DeepSeekSearchDeps = ModelSearchDeps

export type DeepSeekSearchProvider = ModelSearchProvider

const DEEPSEEK_API: ModelApi = {
  providerId: DEEPSEEK_PROVIDER_ID,
  providerName: 'DeepSeek',
  baseURLEnv: DEEPSEEK_BASE_URL_ENV,
  defaultBaseURL: DEFAULT_DEEPSEEK_BASE_URL,
  endpoint: deepSeekMessagesEndpoint,
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createDeepSeekSearch(settings: DeepSeekSearchSettings, deps: DeepSeekSearchDeps): DeepSeekSearchProvider {
  const client = createModelApiClient(DEEPSEEK_API, settings, deps)

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const started = await client.startSearch(request, call)
    const wire = toDeepSeekRequest(request, settings)
    const body = JSON.stringify(wire.body)
    const toError = (answer: HttpAnswer) => fromDeepSeekError(answer, started.errorContext)
    const answer = await started.request({
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-api-key': started.apiKey,
        'anthropic-version': settings.apiVersion,
      },
      body,
      beforeDispatch: (attempt) =>
        appendRequestEvent(call, DEEPSEEK_REQUEST_EVENT, () => ({
          providerId: DEEPSEEK_PROVIDER_ID,
          endpoint: redactUrl(started.endpoint),
          apiVersion: settings.apiVersion,
          attempt: attempt + 1,
          body: JSON.parse(body) as JsonValue,
        })),
      toError,
    })
    const response = started.readSuccessBody(answer, {
      expected: 'a Messages API response',
      parse: parseDeepSeekMessagesResponse,
      errorMessage: (text) => parseDeepSeekErrorBody(text)?.error?.message,
      toError,
    })
    const mapped = fromDeepSeekResponse(response, DEEPSEEK_PROVIDER_ID)
    return toSearchResult(DEEPSEEK_PROVIDER_ID, request, mapped, wire.reportFilters(mapped.sources))
  }

  return {
    id: DEEPSEEK_PROVIDER_ID,
    available: () => client.available(),
    unavailableReason: () => client.unavailableReason(),
    search,
    close: () => client.close(),
  }
}
