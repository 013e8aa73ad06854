import type { SearchFilterReport, SearchRequest, SearchSource } from 'dsh-web'
import type { MessagesRequest, MessagesUserLocation, MessagesWebSearchTool } from './messages-api.js'
import { searchInstruction } from './messages-api.js'
import { checkDomainFilters, cleanDomains, describeDomainCheck, requestRecency, sentDomainFilterReport } from '../wire.js'

/** What a Messages vendor's request takes besides the neutral request. */
export interface MessagesRequestSettings {
  model: string
  maxTokens: number
  maxUses: number
}

/** What differs per vendor in the request and in what its filters are reported as. */
export interface MessagesRequestFamily {
  /** Human name in notes, e.g. Anthropic. */
  providerName: string
  /** The dated tool type sent, e.g. web_search_20250305. */
  toolType: string
  /**
   * The report of a `user_location` sent, which no source can show was
   * applied: honoured only when the vendor documents applying it.
   */
  userLocationReport: SearchFilterReport
}

export interface MessagesWireRequest {
  body: MessagesRequest
  /**
   * One report per requested filter, in request order, once the sources are
   * known: a domain filter sent is honoured only when every source complies;
   * `user_location` as the vendor's documentation warrants; `recency` never,
   * as the tool has no parameter for it. Sources are only read, never removed.
   */
  reportFilters(sources: readonly SearchSource[]): SearchFilterReport[]
}

const NOT_BOTH = 'not sent: the web search tool takes allowed_domains or blocked_domains, never both'

/** Neutral request to the Messages body with the server-side web search tool. */
export function toMessagesRequest(request: SearchRequest, settings: MessagesRequestSettings, family: MessagesRequestFamily): MessagesWireRequest {
  const tool: MessagesWebSearchTool = { type: family.toolType, name: 'web_search', max_uses: settings.maxUses }
  const allowed = cleanDomains(request.allowedDomains, 'allowedDomains')
  const blocked = cleanDomains(request.blockedDomains, 'blockedDomains')
  if (allowed.length) tool.allowed_domains = allowed
  // The tool takes one list or the other, never both: with both, only the allow list is sent.
  else if (blocked.length) tool.blocked_domains = blocked
  const location = toUserLocation(request.userLocation)
  if (location) tool.user_location = location
  const recency = requestRecency(request)

  function reportFilters(sources: readonly SearchSource[]): SearchFilterReport[] {
    const filters: SearchFilterReport[] = []
    for (const check of checkDomainFilters(sources, { allowedDomains: allowed, blockedDomains: blocked })) {
      const sent = check.filter === 'allowed_domains' || !allowed.length
      filters.push(sent ? sentDomainFilterReport(check, family.providerName) : { filter: check.filter, honoured: false, note: `${NOT_BOTH}; ${describeDomainCheck(check)}` })
    }
    if (location) filters.push({ ...family.userLocationReport })
    if (recency) {
      filters.push({
        filter: 'recency',
        honoured: false,
        note: `not sent: the ${family.providerName} web search tool (${family.toolType}) has no date or recency parameter, so sources older than a ${recency} may be among them`,
      })
    }
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

function toUserLocation(location: SearchRequest['userLocation']): MessagesUserLocation | undefined {
  if (!location) return undefined
  const result: MessagesUserLocation = { type: 'approximate' }
  if (location.city) result.city = location.city
  if (location.region) result.region = location.region
  if (location.country) result.country = location.country
  if (location.timezone) result.timezone = location.timezone
  return Object.keys(result).length > 1 ? result : undefined
}
