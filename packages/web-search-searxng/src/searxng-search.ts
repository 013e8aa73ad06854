import { redactUrl, WebError } from 'dsh-web'
import type { ProviderCall, SearchRequest, SearchResult } from 'dsh-web'
import { appendRequestEvent, createModelApiClient, toSearchResult } from 'dsh-provider-kit'
import type { HttpAnswer, ModelApi, ModelSearchDeps, ModelSearchProvider, ModelSearchProxy } from 'dsh-provider-kit'
import { authSettingsProblem, type SearxngAuthSettings, toSearxngAuth } from './searxng-auth.js'
import { fromSearxngError, fromSearxngRedirect, type SearxngErrorContext } from './searxng-error.js'
import { parseSearxngErrorBody, parseSearxngSearchResponse } from './searxng-search-api.js'
import { collectSearxngPages } from './from-searxng-response.js'
import { searxngSearchEndpoint, type SearxngRequestSettings, toSearxngRequest } from './to-searxng-request.js'

export const SEARXNG_PROVIDER_ID = 'searxng'
/** Read when the row sets no baseURL. There is no default: the operator names the instance. */
export const SEARXNG_BASE_URL_ENV = 'SEARXNG_BASE_URL'
export const SEARXNG_REQUEST_EVENT = 'web/searxng-search-request'
/** Sent so that the instance's logs can tell these requests apart; it matches none of the limiter's bot patterns. */
export const SEARXNG_USER_AGENT = 'dsh-web-search-searxng'

export interface SearxngSearchSettings extends SearxngAuthSettings, SearxngRequestSettings {
  /** The instance's root, e.g. https://search.internal.example/ (`/search` is appended). */
  baseURL?: string
  /** Sources listed per search; pages are requested until there are this many. */
  maxResults: number
  /** Pages requested at most per search (each is a full metasearch on the instance). */
  maxPages: number
  /** Deadline of one search: every page, retries and their waits included. */
  timeoutMs: number
  /** At most 2, per page. */
  maxRetries?: number
  maxResponseBytes?: number
  /** The proxy route; overrides HTTPS_PROXY, HTTP_PROXY and NO_PROXY. */
  proxy?: ModelSearchProxy
}

/** `env` is where SEARXNG_BASE_URL is read. */
export type SearxngSearchDeps = ModelSearchDeps

export type SearxngSearchProvider = ModelSearchProvider

const SEARXNG_API: ModelApi = {
  providerId: SEARXNG_PROVIDER_ID,
  providerName: 'SearXNG',
  baseURLEnv: SEARXNG_BASE_URL_ENV,
  credential: 'optional',
  literalKey: 'authValue',
  endpoint: searxngSearchEndpoint,
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createSearxngSearch(settings: SearxngSearchSettings, deps: SearxngSearchDeps): SearxngSearchProvider {
  const client = createModelApiClient(
    SEARXNG_API,
    {
      apiKeyEnv: settings.authEnv,
      apiKey: settings.authValue,
      baseURL: settings.baseURL,
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      maxResponseBytes: settings.maxResponseBytes,
      proxy: settings.proxy,
    },
    deps,
  )

  function unavailableReason(): string | undefined {
    const problems = [client.unavailableReason(), authSettingsProblem(settings)].filter((problem): problem is string => !!problem)
    return problems.length ? problems.join('; ') : undefined
  }

  /** A search of at most `maxPages` pages (the row's; doctor's check asks for one). */
  async function search(request: SearchRequest, call: ProviderCall, maxPages = settings.maxPages): Promise<SearchResult> {
    const authProblem = authSettingsProblem(settings)
    if (authProblem) {
      throw new WebError('WEB_PROVIDER_UNAVAILABLE', `The SearXNG search is not available: ${authProblem}.`, { details: { providerId: SEARXNG_PROVIDER_ID } })
    }
    const started = await client.startSearch(request, call)
    const auth = toSearxngAuth(settings, started.credential?.value, started.errorContext.credential, SEARXNG_PROVIDER_ID)
    const wire = toSearxngRequest(request, settings)
    const context: SearxngErrorContext = {
      ...started.errorContext,
      secrets: auth.secrets,
      ...(settings.authEnv && started.credential ? { credentialName: settings.authEnv } : {}),
    }
    const toError = (answer: HttpAnswer) => fromSearxngError(answer, context)
    const collector = collectSearxngPages({ providerId: SEARXNG_PROVIDER_ID, maxResults: settings.maxResults })

    for (let page = 1; page <= maxPages; page++) {
      const url = wire.pageURL(started.endpoint, page)
      let added: number
      try {
        const answer = await started.request({
          method: 'GET',
          url,
          headers: { accept: 'application/json', 'user-agent': SEARXNG_USER_AGENT, ...auth.headers },
          beforeDispatch: (attempt) =>
            appendRequestEvent(call, SEARXNG_REQUEST_EVENT, () => ({
              providerId: SEARXNG_PROVIDER_ID,
              endpoint: redactUrl(started.endpoint),
              queryString: url.search.slice(1),
              page,
              attempt: attempt + 1,
              auth: started.credential ? settings.authScheme : 'none',
            })),
          toError,
          toRedirectError: (answer, target) => fromSearxngRedirect(answer, target, context, wire.q),
        })
        const response = started.readSuccessBody(answer, {
          expected: 'a SearXNG JSON search response (an object with a `results` array)',
          parse: parseSearxngSearchResponse,
          errorMessage: (text) => parseSearxngErrorBody(text)?.error,
          toError,
        })
        added = collector.add(response)
      } catch (error) {
        // A later page's failure leaves the earlier pages' results standing, said in a warning; the first page's, a cancel or a deadline end the search.
        if (page === 1 || !WebError.is(error) || error.code === 'WEB_ABORTED' || error.code === 'WEB_TIMEOUT') throw error
        collector.pageFailed(page, error)
        break
      }
      if (collector.size >= settings.maxResults || added === 0) break
    }

    const mapped = collector.finish(wire.q)
    return toSearchResult(SEARXNG_PROVIDER_ID, request, mapped, wire.reportFilters(mapped.sources))
  }

  return {
    id: SEARXNG_PROVIDER_ID,
    available: () => unavailableReason() === undefined,
    unavailableReason,
    search: (request, call) => search(request, call),
    // A self-hosted instance costs nothing to ask: one JSON search is what proves `json` is in its search.formats.
    async check(call) {
      const result = await search({ query: DOCTOR_QUERY }, call, 1)
      return `a JSON search (q=${DOCTOR_QUERY}) answered with ${result.sources.length} result${result.sources.length === 1 ? '' : 's'}`
    },
    close: () => client.close(),
  }
}

/** What `dsh doctor` searches for: harmless, and says where it came from in the instance's log. */
const DOCTOR_QUERY = 'dsh doctor'
