import type { ProviderCall, SearchRequest, SearchResult } from 'dsh-web'
import { createModelApiClient, postJsonSearch, parseObjectWith, runModelApiCheck, toSearchResult } from 'dsh-provider-kit'
import type { HttpAnswer, ModelApi, ModelSearchDeps, ModelSearchProvider, ModelSearchSettings } from 'dsh-provider-kit'
import { fromOpenAIError } from './openai-error.js'
import { fromOpenAIResponse } from './from-openai-response.js'
import { parseOpenAIErrorBody, parseOpenAIResponse, type OpenAISearchContextSize } from './openai-responses-api.js'
import { openAIResponsesEndpoint, toOpenAIRequest } from './to-openai-request.js'

export const OPENAI_PROVIDER_ID = 'openai-official'
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com'
/** Read when the row sets no baseURL. */
export const OPENAI_BASE_URL_ENV = 'OPENAI_SEARCH_BASE_URL'
export const OPENAI_REQUEST_EVENT = 'web/openai-search-llm-request'

export interface OpenAISearchSettings extends ModelSearchSettings {
  model: string
  searchContextSize?: OpenAISearchContextSize
  /** Sent as OpenAI-Organization when set. */
  organization?: string
  /** Sent as OpenAI-Project when set. */
  project?: string
}

/** `env` is where OPENAI_SEARCH_BASE_URL is read. */
export type OpenAISearchDeps = ModelSearchDeps

export type OpenAISearchProvider = ModelSearchProvider

const OPENAI_API: ModelApi = {
  providerId: OPENAI_PROVIDER_ID,
  providerName: 'OpenAI',
  baseURLEnv: OPENAI_BASE_URL_ENV,
  defaultBaseURL: DEFAULT_OPENAI_BASE_URL,
  endpoint: openAIResponsesEndpoint,
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createOpenAISearch(settings: OpenAISearchSettings, deps: OpenAISearchDeps): OpenAISearchProvider {
  const client = createModelApiClient(OPENAI_API, settings, deps)

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const started = await client.startSearch(request, call)
    const wire = toOpenAIRequest(request, settings)
    const toError = (answer: HttpAnswer) => fromOpenAIError(answer, started.errorContext)
    const response = await postJsonSearch(started, call, {
      headers: openAIHeaders(started.apiKey),
      body: wire.body,
      requestEvent: OPENAI_REQUEST_EVENT,
      toError,
      expected: 'a Responses API response',
      parse: parseOpenAIResponse,
      errorMessage: (text) => parseOpenAIErrorBody(text)?.error?.message,
    })
    const mapped = fromOpenAIResponse(response, OPENAI_PROVIDER_ID)
    return toSearchResult(OPENAI_PROVIDER_ID, request, mapped, wire.reportFilters(mapped.sources))
  }

  /** The key, organization and project of every request. */
  function openAIHeaders(apiKey: string): Record<string, string> {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` }
    if (settings.organization) headers['openai-organization'] = settings.organization
    if (settings.project) headers['openai-project'] = settings.project
    return headers
  }

  /**
   * `GET {base}/v1/models/{model}` ("Retrieve model", free): the key, the
   * organization and project, the base URL and the configured model.
   */
  function check(call: ProviderCall): Promise<string> {
    return runModelApiCheck(client, call, (started) => ({
      // Beside {base}/v1/responses.
      url: new URL(`models/${encodeURIComponent(settings.model)}`, started.endpoint),
      headers: openAIHeaders(started.apiKey),
      toError: fromOpenAIError,
      expected: 'a Models API model',
      parse: (text) => parseObjectWith('id', text),
      errorMessage: (text) => parseOpenAIErrorBody(text)?.error?.message,
      proves: () => `the key works and the model ${settings.model} exists`,
    }))
  }

  return {
    id: OPENAI_PROVIDER_ID,
    available: () => client.available(),
    unavailableReason: () => client.unavailableReason(),
    search,
    check,
    close: () => client.close(),
  }
}
