import type { SearchFilterReport, SearchRequest, SearchSource } from 'dsh-web'
import { checkDomainFilters, cleanDomains, describeDomainCheck, sentDomainFilterReport, versionedEndpoint } from 'dsh-provider-kit'
import type { OpenAIResponsesRequest, OpenAISearchContextSize, OpenAIUserLocation, OpenAIWebSearchTool } from './openai-responses-api.js'

export interface OpenAIRequestSettings {
  model: string
  searchContextSize?: OpenAISearchContextSize
}

export interface OpenAIWireRequest {
  body: OpenAIResponsesRequest
  /**
   * One report per requested filter once the sources are known:
   * `user_location` as documented for the web_search tool (it cannot be checked
   * against the sources); `allowed_domains`, documented too, honoured only when
   * every source complies; `blocked_domains`, which this API has no field for,
   * never honoured. Sources are only read, never removed.
   */
  reportFilters(sources: readonly SearchSource[]): SearchFilterReport[]
}

const LOCATION_DOCUMENTED = 'sent to OpenAI, which documents user_location for the web_search tool; the results cannot show it'
const NO_BLOCKED_FIELD = 'not sent: the OpenAI web_search tool has no blocked-domains filter, so results may include those domains'
const RECENCY_NO_PARAMETER = 'not sent: the OpenAI web_search tool has no date or recency parameter'

/** `{base}/v1/responses`, or `{base}/responses` when the base already ends in /v1. */
export function openAIResponsesEndpoint(baseURL: string): URL {
  return versionedEndpoint(baseURL, 'responses')
}

/** Neutral request to the Responses body with the hosted web_search tool. */
export function toOpenAIRequest(request: SearchRequest, settings: OpenAIRequestSettings): OpenAIWireRequest {
  const tool: OpenAIWebSearchTool = { type: 'web_search' }
  if (settings.searchContextSize) tool.search_context_size = settings.searchContextSize
  const location = toUserLocation(request.userLocation)
  if (location) tool.user_location = location
  const allowed = cleanDomains(request.allowedDomains, 'allowedDomains')
  const blocked = cleanDomains(request.blockedDomains, 'blockedDomains')
  if (allowed.length) tool.filters = { allowed_domains: allowed }

  function reportFilters(sources: readonly SearchSource[]): SearchFilterReport[] {
    const filters: SearchFilterReport[] = []
    if (location) filters.push({ filter: 'user_location', honoured: true, note: LOCATION_DOCUMENTED })
    for (const check of checkDomainFilters(sources, { allowedDomains: allowed, blockedDomains: blocked })) {
      filters.push(
        check.filter === 'allowed_domains'
          ? sentDomainFilterReport(check, 'OpenAI')
          : { filter: check.filter, honoured: false, note: `${NO_BLOCKED_FIELD}; ${describeDomainCheck(check)}` },
      )
    }
    if (request.recency) filters.push({ filter: 'recency', honoured: false, note: RECENCY_NO_PARAMETER })
    return filters
  }

  return {
    body: { model: settings.model, input: request.query, tools: [tool], include: ['web_search_call.action.sources'], store: false },
    reportFilters,
  }
}

function toUserLocation(location: SearchRequest['userLocation']): OpenAIUserLocation | undefined {
  if (!location) return undefined
  const result: OpenAIUserLocation = { type: 'approximate' }
  if (location.country) result.country = location.country
  if (location.city) result.city = location.city
  if (location.region) result.region = location.region
  if (location.timezone) result.timezone = location.timezone
  return Object.keys(result).length > 1 ? result : undefined
}
