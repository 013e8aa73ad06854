import type { SearchFilterReport, SearchRecency, SearchRequest, SearchSource } from 'dsh-web'
import { checkDomainFilters, cleanDomains, sentDomainFilterReport, appendedEndpoint } from 'dsh-provider-kit'
import type { ExaSearchRequest, ExaSearchType, ExaSnippetSource } from './exa-search-api.js'

export interface ExaRequestSettings {
  /** Results per search, 1..100 (`numResults`). */
  maxResults: number
  type?: ExaSearchType
  /** What becomes each source's snippet: `highlights` (excerpts relevant to the query) or `text` (the page's text from its start). */
  snippets: ExaSnippetSource
  /** The most characters of highlights or text per result (`maxCharacters`). */
  snippetMaxCharacters: number
}

/** Exa's bound on `numResults`. */
export const MAX_RESULTS = 100

/** How far back each recency reaches: a day, 7 days, 31 days, 365 days. */
export const RECENCY_WINDOW_MS: Readonly<Record<SearchRecency, number>> = {
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 31 * 86_400_000,
  year: 365 * 86_400_000,
}

export interface ExaWireRequest {
  body: ExaSearchRequest
  /**
   * One report per requested filter, in request order, once the sources are
   * known: a domain list went out as includeDomains / excludeDomains and is
   * honoured only when every source complies; recency went out as
   * `startPublishedDate` and is honoured only when no source is dated before
   * it; the location is honoured when all of it went out as `userLocation`.
   */
  reportFilters(sources: readonly SearchSource[]): SearchFilterReport[]
}

/** `{base}/search`. Query and fragment dropped; only http(s). */
export function exaSearchEndpoint(baseURL: string): URL {
  return appendedEndpoint(baseURL, 'search')
}

/** Neutral request to the JSON body, and the filter reports; `now` (epoch ms) anchors recency. */
export function toExaRequest(request: SearchRequest, settings: ExaRequestSettings, now: number): ExaWireRequest {
  const allowed = cleanDomains(request.allowedDomains)
  const blocked = cleanDomains(request.blockedDomains)
  const start = request.recency ? new Date(now - RECENCY_WINDOW_MS[request.recency]).toISOString() : undefined
  const location = toCountry(request.userLocation)
  const body: ExaSearchRequest = {
    query: request.query.trim(),
    numResults: Math.min(MAX_RESULTS, Math.max(1, Math.floor(settings.maxResults))),
    ...(settings.type ? { type: settings.type } : {}),
    ...(allowed.length ? { includeDomains: allowed } : {}),
    ...(blocked.length ? { excludeDomains: blocked } : {}),
    ...(start ? { startPublishedDate: start } : {}),
    ...(location.country ? { userLocation: location.country } : {}),
    contents: { [settings.snippets]: { maxCharacters: settings.snippetMaxCharacters } },
  }

  function reportFilters(sources: readonly SearchSource[]): SearchFilterReport[] {
    const filters: SearchFilterReport[] = []
    for (const check of checkDomainFilters(sources, { allowedDomains: allowed, blockedDomains: blocked })) {
      filters.push(sentDomainFilterReport(check, `Exa as ${check.filter === 'allowed_domains' ? 'includeDomains' : 'excludeDomains'}`))
    }
    if (request.userLocation) filters.push(location.report)
    if (start) filters.push(recencyReport(start, sources))
    return filters
  }

  return { body, reportFilters }
}

/**
 * Honoured when no source carries a publication date before the start sent
 * (a source without a date cannot be checked, and Exa documents the filter).
 */
function recencyReport(start: string, sources: readonly SearchSource[]): SearchFilterReport {
  const limit = Date.parse(start)
  const dated = sources.filter((source) => source.publishedDate !== undefined && !Number.isNaN(Date.parse(source.publishedDate)))
  const before = dated.filter((source) => Date.parse(source.publishedDate!) < limit)
  const sent = `sent to Exa as startPublishedDate=${start}`
  if (before.length) {
    return { filter: 'recency', honoured: false, note: `${sent}, but ${before.length} of ${dated.length} dated sources ${before.length === 1 ? 'was' : 'were'} published before it` }
  }
  const found = !dated.length ? '; no source carries a date to check it against' : dated.length === 1 ? '; the one dated source is after it' : `; all ${dated.length} dated sources are after it`
  return { filter: 'recency', honoured: true, note: `${sent}${found}` }
}

/**
 * Exa takes a location only as `userLocation`, a two-letter country code.
 * City, region and timezone have no field, so they are reported as not sent.
 */
function toCountry(location: SearchRequest['userLocation']): { country?: string; report: SearchFilterReport } {
  const given = location?.country?.trim()
  const country = given && /^[a-z]{2}$/i.test(given) ? given.toUpperCase() : undefined
  const unsent = (['city', 'region', 'timezone'] as const).filter((key) => location?.[key])
  const parts = [
    country ? `country ${country} sent to Exa as userLocation` : given ? `country ${JSON.stringify(given)} not sent: Exa takes a two-letter country code` : 'no country, the only part Exa takes, was given',
    unsent.length ? `${unsent.join(', ')} not sent: Exa's search has no such field` : undefined,
  ]
  const report: SearchFilterReport = { filter: 'user_location', honoured: country !== undefined && !unsent.length, note: parts.filter(Boolean).join('; ') }
  return country ? { country, report } : { report }
}
