import type { SearchFilterReport, SearchRecency, SearchRequest, SearchSource } from 'dsh-web'
import { checkDomainFilters, cleanDomains, sentDomainFilterReport, apiBase } from 'dsh-provider-kit'
import type { BraveWebSearchParams } from './brave-web-search-api.js'

export type BraveSafeSearch = 'off' | 'moderate' | 'strict'

export interface BraveRequestSettings {
  /** Web results wanted, 1..200: more than 20 are fetched as pages of 20. */
  maxResults: number
  searchLang?: string
  uiLang?: string
  safesearch?: BraveSafeSearch
  freshness?: string
  extraSnippets?: boolean
}

/** Brave's bounds: `count` 1..20 web results per page, `offset` 0..9 pages. */
export const MAX_COUNT = 20
export const MAX_PAGES = 10

/** The sections asked for: the ones the provider maps, and `query` for the paging signal. */
export const RESULT_FILTER = 'web,news,discussions,query'

export interface BraveWireRequest {
  /** `q` as sent: the query, then the domain filters as site: / -site: operators. */
  q: string
  /** Web results per page. */
  count: number
  /** The most pages this search may ask for (offsets 0 .. pages-1). */
  pages: number
  /** The optional parameters the row makes every request send, e.g. `freshness=pw`. */
  options: string[]
  /** The exact URL of one page: the endpoint with the query string. */
  pageUrl(endpoint: URL, offset: number): URL
  /**
   * One report per requested filter, in request order, once the sources are
   * known: a domain filter sent as operators is honoured only when every
   * source complies (Brave calls its operators experimental); the location is
   * honoured when all of it went out as `country`, which Brave documents.
   */
  reportFilters(sources: readonly SearchSource[]): SearchFilterReport[]
}

const OPERATORS_NOTE = 'its documentation calls search operators experimental'

/** A search's `recency` as Brave's `freshness`: the last 24 hours, 7 days, 31 days or 365 days. */
export const BRAVE_FRESHNESS: Readonly<Record<SearchRecency, string>> = { day: 'pd', week: 'pw', month: 'pm', year: 'py' }

/** `{base}/web/search`, or `{base}/res/v1/web/search` when the base does not end in /res/v1. Query and fragment dropped; only http(s). */
export function braveWebSearchEndpoint(baseURL: string): URL {
  const { url, path } = apiBase(baseURL)
  url.pathname = /\/res\/v1$/.test(path) ? `${path}/web/search` : `${path}/res/v1/web/search`
  return url
}

/** Neutral request to the query string of each page, and the filter reports. */
export function toBraveRequest(request: SearchRequest, settings: BraveRequestSettings): BraveWireRequest {
  const allowed = cleanDomains(request.allowedDomains)
  const blocked = cleanDomains(request.blockedDomains)
  const q = withDomainOperators(request.query.trim(), allowed, blocked)
  const count = Math.min(MAX_COUNT, Math.max(1, Math.floor(settings.maxResults)))
  const pages = Math.min(MAX_PAGES, Math.ceil(settings.maxResults / count))
  const location = toCountry(request.userLocation)

  const base: Omit<BraveWebSearchParams, 'offset'> = { q, count, text_decorations: 'false', result_filter: RESULT_FILTER }
  if (location.country) base.country = location.country
  if (settings.searchLang) base.search_lang = settings.searchLang
  if (settings.uiLang) base.ui_lang = settings.uiLang
  if (settings.safesearch) base.safesearch = settings.safesearch
  if (settings.freshness) base.freshness = settings.freshness
  if (settings.extraSnippets) base.extra_snippets = 'true'
  const options: string[] = []
  for (const key of ['search_lang', 'ui_lang', 'safesearch', 'freshness', 'extra_snippets'] as const) {
    if (base[key] !== undefined) options.push(`${key}=${base[key]}`)
  }
  // The search's own recency wins over the row's freshness for this search; the report says so.
  if (request.recency) base.freshness = BRAVE_FRESHNESS[request.recency]

  function pageUrl(endpoint: URL, offset: number): URL {
    const params = new URLSearchParams()
    // A fixed order, so that the query string logged is the one sent and tests can compare it.
    params.set('q', base.q)
    if (base.country) params.set('country', base.country)
    if (base.search_lang) params.set('search_lang', base.search_lang)
    if (base.ui_lang) params.set('ui_lang', base.ui_lang)
    params.set('count', String(base.count))
    params.set('offset', String(offset))
    if (base.safesearch) params.set('safesearch', base.safesearch)
    if (base.freshness) params.set('freshness', base.freshness)
    params.set('text_decorations', base.text_decorations)
    params.set('result_filter', base.result_filter)
    if (base.extra_snippets) params.set('extra_snippets', base.extra_snippets)
    const url = new URL(endpoint)
    url.search = params.toString()
    return url
  }

  function reportFilters(sources: readonly SearchSource[]): SearchFilterReport[] {
    const filters: SearchFilterReport[] = []
    for (const check of checkDomainFilters(sources, { allowedDomains: allowed, blockedDomains: blocked })) {
      const operator = check.filter === 'allowed_domains' ? 'site:' : '-site:'
      filters.push(sentDomainFilterReport(check, `Brave Search as ${operator} operators (${OPERATORS_NOTE})`))
    }
    if (request.userLocation) filters.push(location.report)
    if (request.recency) filters.push(recencyReport(request.recency, settings.freshness))
    return filters
  }

  return { q, count, pages, options, pageUrl, reportFilters }
}

/** The query, then `site:a OR site:b` for the allowed domains and `-site:c` for each blocked one. */
function withDomainOperators(query: string, allowed: string[], blocked: string[]): string {
  const parts = [query]
  const allowedOperands = allowed.map(siteOperand).filter(Boolean)
  if (allowedOperands.length) parts.push(allowedOperands.map((domain) => `site:${domain}`).join(' OR '))
  for (const domain of blocked.map(siteOperand).filter(Boolean)) parts.push(`-site:${domain}`)
  return parts.join(' ')
}

/** A domain list entry as an operator's operand: no scheme, no trailing slash, no inner spaces. */
function siteOperand(entry: string): string {
  return entry.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '').replace(/\s+/g, '')
}

/**
 * Brave's web search takes a location only as `country` (two letters). City,
 * region and timezone have no query parameter, so they are reported as not sent.
 */
function toCountry(location: SearchRequest['userLocation']): { country?: string; report: SearchFilterReport } {
  const given = location?.country?.trim()
  const country = given && /^[a-z]{2}$/i.test(given) ? given.toUpperCase() : undefined
  const unsent = (['city', 'region', 'timezone'] as const).filter((key) => location?.[key])
  const sent = country ? `country ${country} sent to Brave Search as \`country\`, which it documents as where the results come from` : undefined
  const notCountry = given && !country ? `country ${JSON.stringify(given)} not sent: Brave takes a two-letter country code` : undefined
  const others = unsent.length ? `${unsent.join(', ')} not sent: Brave's web search takes no such parameter` : undefined
  const noCountry = !given && !unsent.length ? 'not sent: the location has no country, the only part Brave\'s web search takes' : undefined
  const note = [sent, notCountry, others, noCountry].filter(Boolean).join('; ')
  const report: SearchFilterReport = { filter: 'user_location', honoured: country !== undefined && !notCountry && !unsent.length, note }
  return country ? { country, report } : { report }
}

/** `freshness` is a documented query parameter, so recency sent as one is honoured (Brave filters by when it found the page). */
function recencyReport(recency: SearchRecency, rowFreshness: string | undefined): SearchFilterReport {
  const sent = BRAVE_FRESHNESS[recency]
  const replaced = rowFreshness && rowFreshness !== sent ? `; it replaced the row's freshness=${rowFreshness} for this search` : ''
  return { filter: 'recency', honoured: true, note: `sent to Brave Search as freshness=${sent}, which it documents as a filter on when the page was discovered${replaced}` }
}
