import type { SearchSource } from 'dsh-web'
import type { MappedSearch } from 'dsh-provider-kit'
import type { PerplexityResult, PerplexitySearchResponse } from './perplexity-search-api.js'

/**
 * The answer, wire to neutral: `results` in Perplexity's order, unique by URL
 * (the first wins), each with its `snippet` and its `date` (else
 * `last_updated`) as the date. The Search API runs no model: there is no
 * answer. `id`, `server_time` and fields not invented yet are ignored on purpose.
 */
export function fromPerplexityResponse(response: PerplexitySearchResponse, query: string): MappedSearch {
  const sources: SearchSource[] = []
  for (const result of response.results) {
    const source = toSource(result)
    if (source && !sources.some((listed) => listed.url === source.url)) sources.push(source)
  }
  const mapped: MappedSearch = { queries: [query], sources, warnings: [] }
  if (!sources.length) mapped.warnings.push('The web search returned no results.')
  return mapped
}

function toSource(result: PerplexityResult): SearchSource | undefined {
  if (typeof result.url !== 'string' || !result.url) return undefined
  const source: SearchSource = { url: result.url }
  const title = nonEmpty(result.title)
  if (title) source.title = title
  const snippet = nonEmpty(result.snippet)
  if (snippet) source.snippet = snippet
  const date = nonEmpty(result.date) ?? nonEmpty(result.last_updated)
  if (date) source.publishedDate = date
  source.kind = 'web'
  return source
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined
}
