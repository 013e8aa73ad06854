import type { SearchFilterReport, SearchRequest, SearchSource } from 'dsh-web'
import { checkDomainFilters, cleanDomains, sentDomainFilterReport, appendedEndpoint } from 'dsh-provider-kit'
import type { TavilyIncludeAnswer, TavilySearchDepth, TavilySearchRequest, TavilyTopic } from './tavily-search-api.js'

export interface TavilyRequestSettings {
  /** Results per search, 1..20 (`max_results`). */
  maxResults: number
  searchDepth?: TavilySearchDepth
  topic?: TavilyTopic
  /** Ask for Tavily's LLM-written answer beside the results; unset: not asked for. */
  includeAnswer?: TavilyIncludeAnswer
}

/** Tavily's bound on `max_results`. */
export const MAX_RESULTS = 20

export interface TavilyWireRequest {
  body: TavilySearchRequest
  /**
   * One report per requested filter, in request order, once the sources are
   * known: a domain list went out as include_domains / exclude_domains and is
   * honoured only when every source complies; recency went out as
   * `time_range`, which Tavily documents, and cannot be checked on sources
   * without a date; the location is not sent (see below).
   */
  reportFilters(sources: readonly SearchSource[]): SearchFilterReport[]
}

const LOCATION_NOT_SENT =
  "not sent: Tavily's only location parameter, `country`, takes a country name from its own list (and only with topic general), not the location a search is given"

/** `{base}/search`. Query and fragment dropped; only http(s). */
export function tavilySearchEndpoint(baseURL: string): URL {
  return appendedEndpoint(baseURL, 'search')
}

/** Neutral request to the JSON body, and the filter reports. */
export function toTavilyRequest(request: SearchRequest, settings: TavilyRequestSettings): TavilyWireRequest {
  const allowed = cleanDomains(request.allowedDomains)
  const blocked = cleanDomains(request.blockedDomains)
  const body: TavilySearchRequest = { query: request.query.trim(), max_results: Math.min(MAX_RESULTS, Math.max(1, Math.floor(settings.maxResults))) }
  if (settings.searchDepth) body.search_depth = settings.searchDepth
  if (settings.topic) body.topic = settings.topic
  if (settings.includeAnswer) body.include_answer = settings.includeAnswer
  if (allowed.length) body.include_domains = allowed
  if (blocked.length) body.exclude_domains = blocked
  if (request.recency) body.time_range = request.recency

  function reportFilters(sources: readonly SearchSource[]): SearchFilterReport[] {
    const filters: SearchFilterReport[] = []
    for (const check of checkDomainFilters(sources, { allowedDomains: allowed, blockedDomains: blocked })) {
      filters.push(sentDomainFilterReport(check, `Tavily as ${check.filter === 'allowed_domains' ? 'include_domains' : 'exclude_domains'}`))
    }
    if (request.userLocation) filters.push({ filter: 'user_location', honoured: false, note: LOCATION_NOT_SENT })
    if (request.recency) {
      filters.push({
        filter: 'recency',
        honoured: true,
        note: `sent to Tavily as time_range=${request.recency}, which it documents as keeping to results published or updated within that ${request.recency}`,
      })
    }
    return filters
  }

  return { body, reportFilters }
}
