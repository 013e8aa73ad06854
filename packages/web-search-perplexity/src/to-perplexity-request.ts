import { type SearchFilterReport, type SearchRequest, type SearchSource, WebError } from 'dsh-web'
import { checkDomainFilters, cleanDomains, describeDomainCheck, sentDomainFilterReport, appendedEndpoint } from 'dsh-provider-kit'
import type { PerplexitySearchMode, PerplexitySearchRequest } from './perplexity-search-api.js'

export interface PerplexityRequestSettings {
  /** Results per search, 1..20 (`max_results`). */
  maxResults: number
  searchMode?: PerplexitySearchMode
  maxTokensPerPage?: number
}

/** Perplexity's bounds: `max_results` 1..20, at most 20 entries in `search_domain_filter`. */
export const MAX_RESULTS = 20
export const MAX_DOMAINS = 20

export interface PerplexityWireRequest {
  body: PerplexitySearchRequest
  /**
   * One report per requested filter, in request order, once the sources are
   * known: a domain list went out in `search_domain_filter` (blocked domains
   * prefixed with `-`) and is honoured only when every source complies;
   * recency went out as `search_recency_filter`, which Perplexity documents;
   * the location is honoured when all of it went out as `country`.
   */
  reportFilters(sources: readonly SearchSource[]): SearchFilterReport[]
}

const NOT_BOTH = 'not sent: search_domain_filter is either an allow list or a deny list, and the allowed domains were sent'

/** `{base}/search`. Query and fragment dropped; only http(s). */
export function perplexitySearchEndpoint(baseURL: string): URL {
  return appendedEndpoint(baseURL, 'search')
}

/** Neutral request to the JSON body, and the filter reports. A domain list over 20 entries is INVALID_ARGUMENT, never cut. */
export function toPerplexityRequest(request: SearchRequest, settings: PerplexityRequestSettings): PerplexityWireRequest {
  const allowed = cleanDomains(request.allowedDomains, 'allowedDomains')
  const blocked = cleanDomains(request.blockedDomains, 'blockedDomains')
  // The filter is an allow list or a deny list: with both, only the allowed domains go.
  const filter = allowed.length ? allowed : blocked.map((domain) => `-${domain}`)
  if (filter.length > MAX_DOMAINS) {
    const argument = allowed.length ? 'allowedDomains' : 'blockedDomains'
    throw new WebError(
      'INVALID_ARGUMENT',
      `Perplexity takes at most ${MAX_DOMAINS} domains in search_domain_filter, and ${argument} has ${filter.length}; give ${MAX_DOMAINS} or fewer.`,
      { details: { providerId: 'perplexity', argument } },
    )
  }
  const location = toCountry(request.userLocation)
  const body: PerplexitySearchRequest = {
    query: request.query.trim(),
    max_results: Math.min(MAX_RESULTS, Math.max(1, Math.floor(settings.maxResults))),
    ...(settings.searchMode ? { search_mode: settings.searchMode } : {}),
    ...(settings.maxTokensPerPage ? { max_tokens_per_page: settings.maxTokensPerPage } : {}),
    ...(filter.length ? { search_domain_filter: filter } : {}),
    ...(request.recency ? { search_recency_filter: request.recency } : {}),
    ...(location.country ? { country: location.country } : {}),
  }

  function reportFilters(sources: readonly SearchSource[]): SearchFilterReport[] {
    const filters: SearchFilterReport[] = []
    for (const check of checkDomainFilters(sources, { allowedDomains: allowed, blockedDomains: blocked })) {
      if (check.filter === 'allowed_domains') filters.push(sentDomainFilterReport(check, 'Perplexity in search_domain_filter'))
      else if (!allowed.length) filters.push(sentDomainFilterReport(check, 'Perplexity in search_domain_filter, each prefixed with -'))
      else filters.push({ filter: check.filter, honoured: false, note: `${NOT_BOTH}; ${describeDomainCheck(check)}` })
    }
    if (request.userLocation) filters.push(location.report)
    if (request.recency) {
      filters.push({ filter: 'recency', honoured: true, note: `sent to Perplexity as search_recency_filter=${request.recency}, which it documents as a filter on when the results were published` })
    }
    return filters
  }

  return { body, reportFilters }
}

/**
 * Perplexity takes a location only as `country`, a two-letter code the
 * results are biased towards. City, region and timezone have no field.
 */
function toCountry(location: SearchRequest['userLocation']): { country?: string; report: SearchFilterReport } {
  const given = location?.country?.trim()
  const country = given && /^[a-z]{2}$/i.test(given) ? given.toUpperCase() : undefined
  const unsent = (['city', 'region', 'timezone'] as const).filter((key) => location?.[key])
  const parts = [
    country ? `country ${country} sent to Perplexity as country` : given ? `country ${JSON.stringify(given)} not sent: Perplexity takes a two-letter country code` : 'no country, the only part Perplexity takes, was given',
    unsent.length ? `${unsent.join(', ')} not sent: the Search API has no such field` : undefined,
  ]
  const report: SearchFilterReport = { filter: 'user_location', honoured: country !== undefined && !unsent.length, note: parts.filter(Boolean).join('; ') }
  return country ? { country, report } : { report }
}
