import type { ProviderCall, SearchRequest, SearchResult } from 'dsh-web'
import { createModelApiClient, postJsonSearch, toSearchResult } from 'dsh-provider-kit'
import type { HttpAnswer, ModelApi, ModelSearchDeps, ModelSearchProvider, ModelSearchSettings } from 'dsh-provider-kit'
import { parseExaError, parseExaSearchResponse } from './exa-search-api.js'
import { fromExaError } from './exa-error.js'
import { fromExaResponse } from './from-exa-response.js'
import { exaSearchEndpoint, toExaRequest, type ExaRequestSettings } from './to-exa-request.js'

export const EXA_PROVIDER_ID = 'exa'
export const DEFAULT_EXA_BASE_URL = 'https://api.exa.ai'
/** Read when the row sets no baseURL. */
export const EXA_BASE_URL_ENV = 'EXA_SEARCH_BASE_URL'
export const EXA_REQUEST_EVENT = 'web/exa-search-request'

export interface ExaSearchSettings extends ModelSearchSettings, ExaRequestSettings {}

/** `env` is where EXA_SEARCH_BASE_URL is read; `now` (epoch ms, Date.now by default) anchors recency's start date. */
export interface ExaSearchDeps extends ModelSearchDeps {
  now?: () => number
}

export type ExaSearchProvider = ModelSearchProvider

const EXA_API: ModelApi = {
  providerId: EXA_PROVIDER_ID,
  providerName: 'Exa',
  baseURLEnv: EXA_BASE_URL_ENV,
  defaultBaseURL: DEFAULT_EXA_BASE_URL,
  endpoint: exaSearchEndpoint,
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createExaSearch(settings: ExaSearchSettings, deps: ExaSearchDeps): ExaSearchProvider {
  const client = createModelApiClient(EXA_API, settings, deps)
  const now = deps.now ?? Date.now

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const started = await client.startSearch(request, call)
    const wire = toExaRequest(request, settings, now())
    const toError = (answer: HttpAnswer) => fromExaError(answer, started.errorContext)
    const response = await postJsonSearch(started, call, {
      headers: { 'x-api-key': started.apiKey },
      body: wire.body,
      requestEvent: EXA_REQUEST_EVENT,
      toError,
      expected: 'an Exa search response',
      parse: parseExaSearchResponse,
      errorMessage: (text) => parseExaError(text)?.message,
    })
    const mapped = fromExaResponse(response, wire.body.query, settings.snippets)
    mapped.usage = { searchRequests: 1 }
    return toSearchResult(EXA_PROVIDER_ID, request, mapped, wire.reportFilters(mapped.sources))
  }

  return {
    id: EXA_PROVIDER_ID,
    available: () => client.available(),
    unavailableReason: () => client.unavailableReason(),
    search,
    close: () => client.close(),
  }
}
