import type { SearchRequest, SearchResult } from './types.js'
import { stateKey } from './shared-state.js'

/** Bumped when the stored shape changes, so that processes of two versions never read each other's entries. */
const SEARCH_CACHE_FORMAT = 1

/** The cache key of a search: the provider, the query and the filters, as asked. */
export function searchCacheKey(providerId: string, request: SearchRequest): string {
  return stateKey(`search:v${SEARCH_CACHE_FORMAT}:${providerId}`, [
    request.query,
    request.allowedDomains ?? null,
    request.blockedDomains ?? null,
    request.userLocation ?? null,
  ])
}

/**
 * A stored result as a hit returns it: `cacheHit`, no usage (nothing was
 * spent on it), and a note saying when it was searched. Undefined for an
 * entry that is not a search result.
 */
export function fromSearchCache(stored: string, providerId: string): SearchResult | undefined {
  let result: SearchResult
  try {
    result = JSON.parse(stored) as SearchResult
  } catch {
    return undefined
  }
  if (!result || typeof result !== 'object' || result.providerId !== providerId || !Array.isArray(result.sources) || !Array.isArray(result.warnings)) return undefined
  const { usage: _spent, ...rest } = result
  return { ...rest, cacheHit: true, warnings: [...result.warnings, `From the cache: searched at ${result.searchedAt ?? 'an earlier call'}.`] }
}
