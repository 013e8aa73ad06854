import type { SearchFilterReport, SearchRequest, SearchSource } from 'dsh-web'
import { checkDomainFilters, cleanDomains, describeDomainCheck, sentDomainFilterReport, versionedEndpoint } from 'dsh-provider-kit'
import type { DeepSeekMessagesRequest, DeepSeekUserLocation, DeepSeekWebSearchTool } from './deepseek-messages-api.js'

export interface DeepSeekRequestSettings {
  model: string
  maxTokens: number
  maxUses: number
}

export interface DeepSeekWireRequest {
  body: DeepSeekMessagesRequest
  /**
   * One report per requested filter, in request order, once the sources are
   * known: a domain filter sent is honoured only when every source complies
   * (DeepSeek does not document applying it, so the sources are the only
   * evidence); `user_location` is never reported honoured, as nothing shows it
   * was applied. Sources are only read, never removed.
   */
  reportFilters(sources: readonly SearchSource[]): SearchFilterReport[]
}

const NOT_BOTH = 'not sent: the web search tool takes allowed_domains or blocked_domains, never both'
const LOCATION_UNVERIFIED = 'sent to DeepSeek, but its documentation does not say it applies user_location, and the results cannot show it'
const RECENCY_NO_PARAMETER = 'not sent: the web search tool of the Messages API has no date or recency parameter'

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
  const allowed = cleanDomains(request.allowedDomains, 'allowedDomains')
  const blocked = cleanDomains(request.blockedDomains, 'blockedDomains')
  if (allowed.length) tool.allowed_domains = allowed
  // The tool takes one list or the other, never both: with both, only the allow list is sent.
  else if (blocked.length) tool.blocked_domains = blocked
  const location = toUserLocation(request.userLocation)
  if (location) tool.user_location = location

  function reportFilters(sources: readonly SearchSource[]): SearchFilterReport[] {
    const filters: SearchFilterReport[] = []
    for (const check of checkDomainFilters(sources, { allowedDomains: allowed, blockedDomains: blocked })) {
      const sent = check.filter === 'allowed_domains' || !allowed.length
      filters.push(sent ? sentDomainFilterReport(check, 'DeepSeek') : { filter: check.filter, honoured: false, note: `${NOT_BOTH}; ${describeDomainCheck(check)}` })
    }
    if (location) filters.push({ filter: 'user_location', honoured: false, note: LOCATION_UNVERIFIED })
    if (request.recency) filters.push({ filter: 'recency', honoured: false, note: RECENCY_NO_PARAMETER })
    return filters
  }

  return {
    body: {
      model: settings.model,
      max_tokens: settings.maxTokens,
      messages: [{ role: 'user', content: searchInstruction(request.query) }],
      tools: [tool],
    },
    reportFilters,
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
