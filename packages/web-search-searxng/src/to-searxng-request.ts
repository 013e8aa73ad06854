import type { SearchFilterReport, SearchRequest, SearchSource } from 'dsh-web'
import { checkDomainFilters, cleanDomains, sentDomainFilterReport, apiBase } from 'dsh-provider-kit'
import type { SearxngSafeSearch, SearxngSearchParams, SearxngTimeRange } from './searxng-search-api.js'

/** The row's settings that shape every query. */
export interface SearxngRequestSettings {
  language?: string
  safesearch?: SearxngSafeSearch
  timeRange?: SearxngTimeRange
  categories?: string[]
  engines?: string[]
}

export interface SearxngWireRequest {
  /** The `q` sent: the query, then the domain filters as `site:` / `-site:` terms. */
  q: string
  /** Page `pageno`'s query parameters, in the order sent. */
  params(pageno: number): SearxngSearchParams
  /** The endpoint with page `pageno`'s query string. */
  pageURL(endpoint: URL, pageno: number): URL
  /**
   * One report per requested filter, in request order, once the sources are
   * known: a domain filter goes to the engines as query terms, which some
   * engines ignore, so it is honoured only when every source complies.
   * `user_location` is never sent. `recency` goes out as `time_range`,
   * and SearXNG then asks only the engines that support one. Sources are
   * only read, never removed.
   */
  reportFilters(sources: readonly SearchSource[]): SearchFilterReport[]
}

const LOCATION_NOT_SENT =
  'not sent: SearXNG has no location parameter (its `language` selects a language, not a place; set `language` in the searxng row)'

/**
 * `{base}/search`, the base's query and fragment dropped; a base that already
 * ends in /search is kept. A base that is not http(s), or that carries a user
 * name or password, throws (a credential belongs in `authEnv`).
 */
export function searxngSearchEndpoint(baseURL: string): URL {
  const { url, path } = apiBase(baseURL)
  if (url.username || url.password) throw new TypeError('it carries a user name or password; store them as a credential named by authEnv instead')
  url.pathname = /\/search$/.test(path) ? path : `${path}/search`
  return url
}

/** A domain list entry as a `site:` operand: no scheme, no trailing slash. */
function siteOperand(domain: string): string {
  return domain.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '')
}

/**
 * The query with the domain filters as operators the engines read: allowed
 * domains as `site:a` (several joined by OR), blocked ones as `-site:b` each.
 * SearXNG passes them through verbatim; whether an engine applies them is the
 * engine's business, hence the check against the sources.
 */
export function searxngQuery(query: string, allowed: readonly string[], blocked: readonly string[]): string {
  const terms = [query.trim()]
  if (allowed.length) terms.push(allowed.map((domain) => `site:${siteOperand(domain)}`).join(' OR '))
  for (const domain of blocked) terms.push(`-site:${siteOperand(domain)}`)
  return terms.join(' ')
}

/** Category or engine names trimmed, without empty entries and duplicates, in order. */
function cleanNames(names: readonly string[] | undefined): string[] {
  return [...new Set((names ?? []).map((name) => name.trim()).filter(Boolean))]
}

/** Neutral request and row settings to the query string of each page. */
export function toSearxngRequest(request: SearchRequest, settings: SearxngRequestSettings): SearxngWireRequest {
  const allowed = cleanDomains(request.allowedDomains)
  const blocked = cleanDomains(request.blockedDomains)
  const q = searxngQuery(request.query, allowed, blocked)
  const categories = cleanNames(settings.categories).join(',')
  const engines = cleanNames(settings.engines).join(',')

  function params(pageno: number): SearxngSearchParams {
    const result: SearxngSearchParams = { q, format: 'json', pageno }
    if (settings.language) result.language = settings.language
    if (settings.safesearch !== undefined) result.safesearch = settings.safesearch
    // The search's own recency wins over the row's timeRange for this search; the report says so.
    const timeRange = request.recency ?? settings.timeRange
    if (timeRange) result.time_range = timeRange
    if (categories) result.categories = categories
    if (engines) result.engines = engines
    return result
  }

  function pageURL(endpoint: URL, pageno: number): URL {
    const url = new URL(endpoint)
    const search = new URLSearchParams()
    for (const [key, value] of Object.entries(params(pageno))) search.append(key, String(value))
    url.search = search.toString()
    return url
  }

  function reportFilters(sources: readonly SearchSource[]): SearchFilterReport[] {
    const filters: SearchFilterReport[] = []
    for (const check of checkDomainFilters(sources, { allowedDomains: allowed, blockedDomains: blocked })) {
      const how = check.filter === 'allowed_domains' ? 'SearXNG as site: query terms' : 'SearXNG as -site: query terms'
      filters.push(sentDomainFilterReport(check, how))
    }
    if (request.userLocation) filters.push({ filter: 'user_location', honoured: false, note: LOCATION_NOT_SENT })
    if (request.recency) {
      const replaced = settings.timeRange && settings.timeRange !== request.recency ? `; it replaced the row's timeRange ${settings.timeRange} for this search` : ''
      filters.push({ filter: 'recency', honoured: true, note: `sent to SearXNG as time_range=${request.recency}, with which it asks only the engines that support a time range${replaced}` })
    }
    return filters
  }

  return { q, params, pageURL, reportFilters }
}
