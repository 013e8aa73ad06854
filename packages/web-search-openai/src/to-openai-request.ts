import type { SearchFilterReport, SearchRequest } from 'dsh-web'
import { cleanDomains, versionedEndpoint } from 'dsh-web/provider-http'
import type { OpenAIResponsesRequest, OpenAISearchContextSize, OpenAIUserLocation, OpenAIWebSearchTool } from './openai-responses-api.js'

export interface OpenAIRequestSettings {
  model: string
  searchContextSize?: OpenAISearchContextSize
}

export interface OpenAIWireRequest {
  body: OpenAIResponsesRequest
  /** Which requested filters reached the wire, and which this API cannot take. */
  filters: SearchFilterReport[]
}

/** `{base}/v1/responses`, or `{base}/responses` when the base already ends in /v1. */
export function openAIResponsesEndpoint(baseURL: string): URL {
  return versionedEndpoint(baseURL, 'responses')
}

/** Neutral request to the Responses body with the hosted web_search tool. */
export function toOpenAIRequest(request: SearchRequest, settings: OpenAIRequestSettings): OpenAIWireRequest {
  const tool: OpenAIWebSearchTool = { type: 'web_search' }
  const filters: SearchFilterReport[] = []
  if (settings.searchContextSize) tool.search_context_size = settings.searchContextSize
  const location = toUserLocation(request.userLocation)
  if (location) {
    tool.user_location = location
    filters.push({ filter: 'user_location', honoured: true })
  }
  const allowed = cleanDomains(request.allowedDomains)
  if (allowed.length) {
    tool.filters = { allowed_domains: allowed }
    filters.push({ filter: 'allowed_domains', honoured: true })
  }
  if (cleanDomains(request.blockedDomains).length) {
    filters.push({
      filter: 'blocked_domains',
      honoured: false,
      note: 'not sent: the OpenAI web_search tool has no blocked-domains filter, so results may include those domains',
    })
  }
  return {
    body: { model: settings.model, input: request.query, tools: [tool], include: ['web_search_call.action.sources'], store: false },
    filters,
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
