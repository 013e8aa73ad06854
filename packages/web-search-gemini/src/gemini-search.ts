import type { ProviderCall, SearchRequest, SearchResult } from 'dsh-web'
import { createModelApiClient, postJsonSearch, parseObjectWith, runModelApiCheck, toSearchResult } from 'dsh-provider-kit'
import type { HttpAnswer, ModelApi, ModelSearchDeps, ModelSearchProvider, ModelSearchSettings } from 'dsh-provider-kit'
import { fromGeminiError } from './gemini-error.js'
import { fromGeminiResponse } from './from-gemini-response.js'
import { parseGeminiErrorBody, parseGeminiResponse } from './gemini-generate-content-api.js'
import { geminiGenerateContentEndpoint, toGeminiRequest } from './to-gemini-request.js'

export const GEMINI_PROVIDER_ID = 'gemini-official'
export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com'
/** Read when the row sets no baseURL. */
export const GEMINI_BASE_URL_ENV = 'GEMINI_SEARCH_BASE_URL'
export const GEMINI_REQUEST_EVENT = 'web/gemini-search-llm-request'

export interface GeminiSearchSettings extends ModelSearchSettings {
  model: string
  maxOutputTokens: number
}

export interface GeminiSearchDeps extends ModelSearchDeps {
  /** The clock a recency window is dated by; the system clock by default. */
  now?: () => Date
}

export type GeminiSearchProvider = ModelSearchProvider

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createGeminiSearch(settings: GeminiSearchSettings, deps: GeminiSearchDeps): GeminiSearchProvider {
  const api: ModelApi = {
    providerId: GEMINI_PROVIDER_ID,
    providerName: 'Gemini',
    baseURLEnv: GEMINI_BASE_URL_ENV,
    defaultBaseURL: DEFAULT_GEMINI_BASE_URL,
    endpoint: (baseURL) => geminiGenerateContentEndpoint(baseURL, settings.model),
  }
  const client = createModelApiClient(api, settings, deps)
  const now = deps.now ?? (() => new Date())

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const started = await client.startSearch(request, call)
    const wire = toGeminiRequest(request, settings, now())
    const toError = (answer: HttpAnswer) => fromGeminiError(answer, started.errorContext)
    const response = await postJsonSearch(started, call, {
      // The key goes in its header, never in the URL (?key=), which is logged.
      headers: { 'x-goog-api-key': started.apiKey },
      body: wire.body,
      requestEvent: GEMINI_REQUEST_EVENT,
      toError,
      expected: 'a generateContent response',
      parse: parseGeminiResponse,
      errorMessage: (text) => parseGeminiErrorBody(text)?.error?.message,
    })
    const mapped = fromGeminiResponse(response, GEMINI_PROVIDER_ID)
    return toSearchResult(GEMINI_PROVIDER_ID, request, mapped, wire.filters)
  }

  /**
   * `GET {base}/v1beta/models/{model}` (models.get, free) with the key in its
   * header: the key, the base URL and the configured model.
   */
  function check(call: ProviderCall): Promise<string> {
    return runModelApiCheck(client, call, (started) => ({
      // The generateContent endpoint without its `:generateContent` method.
      url: new URL(started.endpoint.href.replace(/:generateContent$/, '')),
      headers: { 'x-goog-api-key': started.apiKey },
      toError: fromGeminiError,
      expected: 'a Model resource',
      parse: (text) => parseObjectWith('name', text),
      errorMessage: (text) => parseGeminiErrorBody(text)?.error?.message,
      proves: () => `the key works and the model ${settings.model} exists`,
    }))
  }

  return {
    id: GEMINI_PROVIDER_ID,
    available: () => client.available(),
    unavailableReason: () => client.unavailableReason(),
    search,
    check,
    close: () => client.close(),
  }
}
