import { redactUrl, WebError } from 'dsh-web'
import type { ProviderCall, SearchRequest, SearchResult } from 'dsh-web'
import { appendRequestEvent, createModelApiClient, toSearchResult } from 'dsh-provider-kit'
import type { HttpAnswer, ModelApi, ModelSearchDeps, ModelSearchProvider, ModelSearchSettings } from 'dsh-provider-kit'
import { parseBraveError, parseBraveWebSearchResponse } from './brave-web-search-api.js'
import { fromBraveError, type BraveErrorContext } from './brave-error.js'
import { countWebResults, fromBravePage, mergeBravePages, type BravePage } from './from-brave-response.js'
import { braveWebSearchEndpoint, toBraveRequest, type BraveRequestSettings } from './to-brave-request.js'

export const BRAVE_PROVIDER_ID = 'brave'
export const DEFAULT_BRAVE_BASE_URL = 'https://api.search.brave.com/res/v1'
/** Read when the row sets no baseURL. */
export const BRAVE_BASE_URL_ENV = 'BRAVE_SEARCH_BASE_URL'
export const BRAVE_REQUEST_EVENT = 'web/brave-search-request'

export interface BraveSearchSettings extends ModelSearchSettings, BraveRequestSettings {}

/** `env` is where BRAVE_SEARCH_BASE_URL is read. */
export type BraveSearchDeps = ModelSearchDeps

export type BraveSearchProvider = ModelSearchProvider

const BRAVE_API: ModelApi = {
  providerId: BRAVE_PROVIDER_ID,
  providerName: 'Brave Search',
  baseURLEnv: BRAVE_BASE_URL_ENV,
  defaultBaseURL: DEFAULT_BRAVE_BASE_URL,
  endpoint: braveWebSearchEndpoint,
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createBraveSearch(settings: BraveSearchSettings, deps: BraveSearchDeps): BraveSearchProvider {
  const client = createModelApiClient(BRAVE_API, settings, deps)

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const started = await client.startSearch(request, call)
    const wire = toBraveRequest(request, settings)
    const context: BraveErrorContext = { ...started.errorContext, query: wire.q, options: wire.options }
    const toError = (answer: HttpAnswer) => fromBraveError(answer, context)
    const pages: BravePage[] = []
    const warnings: string[] = []

    // One GET per page of `count` web results, while Brave says there are more and the row wants more.
    for (let offset = 0; offset < wire.pages; offset++) {
      const url = wire.pageUrl(started.endpoint, offset)
      let page: BravePage
      try {
        const answer = await started.request({
          method: 'GET',
          url,
          headers: { accept: 'application/json', 'x-subscription-token': started.apiKey },
          beforeDispatch: (attempt) =>
            appendRequestEvent(call, BRAVE_REQUEST_EVENT, () => ({
              providerId: BRAVE_PROVIDER_ID,
              endpoint: redactUrl(url),
              queryString: url.search.slice(1),
              attempt: attempt + 1,
            })),
          toError,
        })
        const response = started.readSuccessBody(answer, {
          expected: 'a web search response',
          parse: parseBraveWebSearchResponse,
          errorMessage: (text) => {
            const error = parseBraveError(text)
            return error?.detail || error?.code
          },
          toError,
        })
        page = fromBravePage(response)
      } catch (error) {
        // The first page's failure is the search's; a later page's leaves the earlier pages standing, said in a warning.
        if (offset === 0 || !WebError.is(error) || error.code === 'WEB_ABORTED' || error.code === 'WEB_TIMEOUT') throw error
        warnings.push(
          `Brave Search failed on page ${offset + 1} (offset ${offset}) with ${error.code}: ${error.message} ` +
            `The sources are those of the first ${offset} page${offset === 1 ? '' : 's'}.`,
        )
        break
      }
      pages.push(page)
      if (!page.web.length || !page.moreResults || countWebResults(pages) >= settings.maxResults) break
    }

    const mapped = mergeBravePages(pages, wire.q, settings.maxResults)
    mapped.warnings.push(...warnings)
    const result = toSearchResult(BRAVE_PROVIDER_ID, request, mapped, wire.reportFilters(mapped.sources))
    result.usage = { searchRequests: pages.length }
    return result
  }

  return {
    id: BRAVE_PROVIDER_ID,
    available: () => client.available(),
    unavailableReason: () => client.unavailableReason(),
    search,
    close: () => client.close(),
  }
}
