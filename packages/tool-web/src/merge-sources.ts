import type { SearchSource } from 'dsh-web'

/** A source of the merged list, with the queries (indexes into the asked queries) that found it. */
export interface MergedSource extends SearchSource {
  queries: number[]
}

/** The key two sources are the same under: the URL without its fragment. */
export function sourceKey(url: string): string {
  try {
    const parsed = new URL(url)
    parsed.hash = ''
    return parsed.href
  } catch {
    return url.trim()
  }
}

/** Whether a source has a URL to list, cite and fetch; one without is left out (and counted in a warning). */
export function hasUrl(source: SearchSource): boolean {
  return typeof source.url === 'string' && source.url.trim() !== ''
}

/**
 * Merges the source lists of several queries round-robin by rank (the first
 * of every list, then the second of every list, ...), keeping the first
 * occurrence of each URL. A later duplicate adds its query and fills any
 * field the first one lacked; nothing else is dropped.
 */
export function mergeSources(lists: ReadonlyArray<{ query: number; sources: readonly SearchSource[] }>): MergedSource[] {
  const merged: MergedSource[] = []
  const byKey = new Map<string, MergedSource>()
  const longest = Math.max(0, ...lists.map((list) => list.sources.length))
  for (let rank = 0; rank < longest; rank++) {
    for (const list of lists) {
      const source = list.sources[rank]
      if (!source || !hasUrl(source)) continue
      const key = sourceKey(source.url)
      const seen = byKey.get(key)
      if (!seen) {
        const entry: MergedSource = { ...source, queries: [list.query] }
        byKey.set(key, entry)
        merged.push(entry)
        continue
      }
      if (!seen.queries.includes(list.query)) seen.queries.push(list.query)
      for (const field of ['title', 'snippet', 'publishedDate'] as const) {
        if (seen[field] === undefined && source[field] !== undefined) seen[field] = source[field]
      }
    }
  }
  return merged
}
