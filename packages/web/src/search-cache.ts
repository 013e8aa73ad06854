import type { RequestRecord, SearchCacheHit, SearchRequest, SearchResult } from './types.js'
import { stateKey } from './shared-state.js'

/** Bumped when the stored shape changes, so that processes of two versions never read each other's entries. */
const SEARCH_CACHE_FORMAT = 2

/** The session event a cached answer appends (log-only): the request behind it stays reconstructable (docs/events.md). */
export const SEARCH_CACHE_HIT_EVENT = 'web/search-cache-hit'

/** The cache key of a search: the provider, the query and the filters, as asked. */
export function searchCacheKey(providerId: string, request: SearchRequest): string {
  return stateKey(`search:v${SEARCH_CACHE_FORMAT}:${providerId}`, [
    request.query,
    request.allowedDomains ?? null,
    request.blockedDomains ?? null,
    request.userLocation ?? null,
    request.recency ?? null,
  ])
}

/** What is stored: the provider's result as it answered, when, and the requests behind it. */
interface StoredSearch {
  result: SearchResult
  searchedAt: string
  requests: RequestRecord[]
}

export function toSearchCache(result: SearchResult, searchedAt: string, requests: RequestRecord[]): string {
  const { fromCache: _never, ...answer } = result
  return JSON.stringify({ result: answer, searchedAt, requests } satisfies StoredSearch)
}

/**
 * A stored result as a hit returns it: `fromCache` (when, which provider, the
 * original requests), no usage (nothing was spent on it), and a warning
 * saying so. Undefined for an entry that is not a search result of this
 * provider.
 */
export function fromSearchCache(stored: string, providerId: string): SearchResult | undefined {
  let entry: StoredSearch
  try {
    entry = JSON.parse(stored) as StoredSearch
  } catch {
    return undefined
  }
  const result = entry?.result
  if (!result || typeof result !== 'object' || result.providerId !== providerId || !Array.isArray(result.sources) || !Array.isArray(result.warnings)) return undefined
  if (typeof entry.searchedAt !== 'string' || !Array.isArray(entry.requests)) return undefined
  const { usage: _spent, ...rest } = result
  const fromCache: SearchCacheHit = { searchedAt: entry.searchedAt, providerId, requests: entry.requests }
  return {
    ...rest,
    fromCache,
    warnings: [...result.warnings, `From the search cache (searchCacheTtlMs of the web row): ${providerId} answered this search at ${entry.searchedAt}; no request was made for this call.`],
  }
}
