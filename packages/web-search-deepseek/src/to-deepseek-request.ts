import type { SearchFilterReport, SearchRequest } from 'dsh-web'
import { cleanDomains, versionedEndpoint } from 'dsh-web/provider-http'
import type { DeepSeekMessagesRequest, DeepSeekUserLocation, DeepSeekWebSearchTool } from './deepseek-messages-api.js'

export interface DeepSeekRequestSettings {
  model: string
  maxTokens: number
  maxUses: number
}

export interface DeepSeekWireRequest {
  body: DeepSeekMessagesRequest
  /** Which requested filters reached the wire. */
  filters: SearchFilterReport[]
}

const BEST_EFFORT = 'sent to DeepSeek; its documentation does not say whether the filter is applied'

/** `{base}/v1/messages`, or `{base}/messages` when the base already ends in /v1. */
export function deepSeekMessagesEndpoint(baseURL: string): URL {
  return versionedEndpoint(baseURL, 'messages')
}

export function searchInstruction(query: string): string {
  return (
    'Search the web for the query below with the web_search tool, then answer it briefly from the results, ' +
    'citing them. Do not answer from memory.\n\n' +
    `Query: ${query}`
  )
}

/** Neutral request to the Messages body with the native web search server tool. */
export function toDeepSeekRequest(request: SearchRequest, settings: DeepSeekRequestSettings): DeepSeekWireRequest {
  const tool: DeepSeekWebSearchTool = { type: 'web_search_20250305', name: 'web_search', max_uses: settings.maxUses }
  const filters: SearchFilterReport[] = []
  const allowed = cleanDomains(request.allowedDomains)
  const blocked = cleanDomains(request.blockedDomains)
  if (allowed.length) {
    tool.allowed_domains = allowed
    filters.push({ filter: 'allowed_domains', honoured: true, note: BEST_EFFORT })
  }
  if (blocked.length) {
    if (allowed.length) {
      // The tool takes one or the other, never both; the allow list already excludes the rest.
      filters.push({ filter: 'blocked_domains', honoured: false, note: 'not sent: the web search tool takes allowed_domains or blocked_domains, never both' })
    } else {
      tool.blocked_domains = blocked
      filters.push({ filter: 'blocked_domains', honoured: true, note: BEST_EFFORT })
    }
  }
  const location = toUserLocation(request.userLocation)
  if (location) {
    tool.user_location = location
    filters.push({ filter: 'user_location', honoured: true, note: BEST_EFFORT })
  }
  return {
    body: {
      model: settings.model,
      max_tokens: settings.maxTokens,
      messages: [{ role: 'user', content: searchInstruction(request.query) }],
      tools: [tool],
    },
    filters,
  }
}

function toUserLocation(location: SearchRequest['userLocation']): DeepSeekUserLocation | undefined {
  if (!location) return undefined
  const result: DeepSeekUserLocation = { type: 'approximate' }
  if (location.city) result.city = location.city
  if (location.region) result.region = location.region
  if (location.country) result.country = location.country
  if (location.timezone) result.timezone = location.timezone
  return Object.keys(result).length > 1 ? result : undefined
}
