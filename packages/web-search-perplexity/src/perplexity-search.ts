import type { ProviderCall, SearchRequest, SearchResult } from 'dsh-web'
import { createModelApiClient, postJsonSearch, toSearchResult } from 'dsh-provider-kit'
import type { HttpAnswer, ModelApi, ModelSearchDeps, ModelSearchProvider, ModelSearchSettings } from 'dsh-provider-kit'
import { parsePerplexityError, parsePerplexitySearchResponse } from './perplexity-search-api.js'
import { fromPerplexityError } from './perplexity-error.js'
import { fromPerplexityResponse } from './from-perplexity-response.js'
import { perplexitySearchEndpoint, toPerplexityRequest, type PerplexityRequestSettings } from './to-perplexity-request.js'

export const PERPLEXITY_PROVIDER_ID = 'perplexity'
export const DEFAULT_PERPLEXITY_BASE_URL = 'https://api.perplexity.ai'
/** Read when the row sets no baseURL. */
export const PERPLEXITY_BASE_URL_ENV = 'PERPLEXITY_SEARCH_BASE_URL'
export const PERPLEXITY_REQUEST_EVENT = 'web/perplexity-search-request'

export interface PerplexitySearchSettings extends ModelSearchSettings, PerplexityRequestSettings {}

/** `env` is where PERPLEXITY_SEARCH_BASE_URL is read. */
export type PerplexitySearchDeps = ModelSearchDeps

export type PerplexitySearchProvider = ModelSearchProvider

const PERPLEXITY_API: ModelApi = {
  providerId: PERPLEXITY_PROVIDER_ID,
  providerName: 'Perplexity',
  baseURLEnv: PERPLEXITY_BASE_URL_ENV,
  defaultBaseURL: DEFAULT_PERPLEXITY_BASE_URL,
  endpoint: perplexitySearchEndpoint,
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createPerplexitySearch(settings: PerplexitySearchSettings, deps: PerplexitySearchDeps): PerplexitySearchProvider {
  const client = createModelApiClient(PERPLEXITY_API, settings, deps)

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const started = await client.startSearch(request, call)
    const wire = toPerplexityRequest(request, settings)
    const toError = (answer: HttpAnswer) => fromPerplexityError(answer, started.errorContext)
    const response = await postJsonSearch(started, call, {
      headers: { authorization: `Bearer ${started.apiKey}` },
      body: wire.body,
      requestEvent: PERPLEXITY_REQUEST_EVENT,
      toError,
      expected: 'a Perplexity Search API response',
      parse: parsePerplexitySearchResponse,
      errorMessage: (text) => parsePerplexityError(text)?.message,
    })
    const mapped = fromPerplexityResponse(response, wire.body.query)
    mapped.usage = { searchRequests: 1 }
    return toSearchResult(PERPLEXITY_PROVIDER_ID, request, mapped, wire.reportFilters(mapped.sources))
  }

  return {
    id: PERPLEXITY_PROVIDER_ID,
    available: () => client.available(),
    unavailableReason: () => client.unavailableReason(),
    search,
    close: () => client.close(),
  }
}
