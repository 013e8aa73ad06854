import { redactUrl, WebError } from 'dsh-web'
import type { ProviderCall, SearchRequest, SearchResult } from 'dsh-web'
import { createModelApiClient, postJsonSearch, parseObjectWith, runModelApiCheck, toSearchResult } from 'dsh-provider-kit'
import type { HttpAnswer, ModelApi, ModelSearchDeps, ModelSearchProvider, ModelSearchSettings } from 'dsh-provider-kit'
import { parseTavilyError, parseTavilySearchResponse } from './tavily-search-api.js'
import { fromTavilyError } from './tavily-error.js'
import { fromTavilyResponse } from './from-tavily-response.js'
import { tavilySearchEndpoint, toTavilyRequest, type TavilyRequestSettings } from './to-tavily-request.js'

export const TAVILY_PROVIDER_ID = 'tavily'
export const DEFAULT_TAVILY_BASE_URL = 'https://api.tavily.com'
/** Read when the row sets no baseURL. */
export const TAVILY_BASE_URL_ENV = 'TAVILY_SEARCH_BASE_URL'
export const TAVILY_REQUEST_EVENT = 'web/tavily-search-request'

export interface TavilySearchSettings extends ModelSearchSettings, TavilyRequestSettings {}

/** `env` is where TAVILY_SEARCH_BASE_URL is read. */
export type TavilySearchDeps = ModelSearchDeps

export type TavilySearchProvider = ModelSearchProvider

const TAVILY_API: ModelApi = {
  providerId: TAVILY_PROVIDER_ID,
  providerName: 'Tavily',
  baseURLEnv: TAVILY_BASE_URL_ENV,
  defaultBaseURL: DEFAULT_TAVILY_BASE_URL,
  endpoint: tavilySearchEndpoint,
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createTavilySearch(settings: TavilySearchSettings, deps: TavilySearchDeps): TavilySearchProvider {
  const client = createModelApiClient(TAVILY_API, settings, deps)

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const started = await client.startSearch(request, call)
    const wire = toTavilyRequest(request, settings)
    const toError = (answer: HttpAnswer) => fromTavilyError(answer, started.errorContext)
    const response = await postJsonSearch(started, call, {
      headers: { authorization: `Bearer ${started.apiKey}` },
      body: wire.body,
      requestEvent: TAVILY_REQUEST_EVENT,
      toError,
      expected: 'a Tavily search response',
      parse: parseTavilySearchResponse,
      errorMessage: (text) => parseTavilyError(text)?.message,
    })
    const mapped = fromTavilyResponse(response, wire.body.query, settings.topic === 'news' ? 'news' : 'web')
    mapped.usage = { searchRequests: 1 }
    return toSearchResult(TAVILY_PROVIDER_ID, request, mapped, wire.reportFilters(mapped.sources))
  }

  /**
   * `GET {base}/usage` (free; docs.tavily.com, "Usage"): the key and base URL,
   * and that the key's own credit limit is not used up.
   */
  function check(call: ProviderCall): Promise<string> {
    return runModelApiCheck(client, call, (started) => ({
      // Beside {base}/search.
      url: new URL('usage', started.endpoint),
      headers: { authorization: `Bearer ${started.apiKey}` },
      toError: fromTavilyError,
      expected: 'a Tavily usage object',
      parse: (text) => parseObjectWith('key', text, 'object'),
      errorMessage: (text) => parseTavilyError(text)?.message,
      proves: (response, context) => {
        const key = response.key as { usage?: unknown; limit?: unknown }
        const counted = typeof key.usage === 'number' && typeof key.limit === 'number'
        if (counted && (key.usage as number) >= (key.limit as number)) {
          throw new WebError('WEB_PROVIDER_QUOTA_EXHAUSTED', `Tavily reports this key's credit limit used up (${key.usage} of ${key.limit}); raise the key's limit on the Tavily dashboard.`, {
            details: { providerId: TAVILY_PROVIDER_ID, url: redactUrl(context.endpoint), status: 200 },
          })
        }
        if (counted) return `the key works (${key.usage} of its ${key.limit} credits used)`
        return key.limit === null || key.limit === undefined ? 'the key works (no credit limit on the key)' : 'the key works'
      },
    }))
  }

  return {
    id: TAVILY_PROVIDER_ID,
    available: () => client.available(),
    unavailableReason: () => client.unavailableReason(),
    search,
    check,
    close: () => client.close(),
  }
}
