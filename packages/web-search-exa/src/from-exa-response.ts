import type { SearchSource } from 'dsh-web'
import type { MappedSearch } from 'dsh-provider-kit'
import type { ExaResult, ExaSearchResponse, ExaSnippetSource } from './exa-search-api.js'

/**
 * The answer, wire to neutral: `results` in Exa's order, unique by URL (the
 * first wins). With highlights, the first is the snippet and the rest are
 * extra snippets; with text, the text is the snippet. `publishedDate` is the
 * date. Exa's search writes no prose, so there is no answer; `score`,
 * `author`, `summary`, `costDollars` and fields not invented yet are ignored on purpose.
 */
export function fromExaResponse(response: ExaSearchResponse, query: string, snippets: ExaSnippetSource): MappedSearch {
  const sources: SearchSource[] = []
  for (const result of response.results) {
    const source = toSource(result, snippets)
    if (source && !sources.some((listed) => listed.url === source.url)) sources.push(source)
  }
  const mapped: MappedSearch = { queries: [query], sources, warnings: [] }
  if (!sources.length) mapped.warnings.push('The web search returned no results.')
  return mapped
}

function toSource(result: ExaResult, snippets: ExaSnippetSource): SearchSource | undefined {
  if (typeof result.url !== 'string' || !result.url) return undefined
  const source: SearchSource = { url: result.url }
  const title = nonEmpty(result.title)
  if (title) source.title = title
  const excerpts = snippets === 'highlights'
    ? (Array.isArray(result.highlights) ? result.highlights : []).map(nonEmpty).filter((text): text is string => text !== undefined)
    : [nonEmpty(result.text)].filter((text): text is string => text !== undefined)
  if (excerpts[0]) source.snippet = excerpts[0]
  if (excerpts.length > 1) source.extraSnippets = excerpts.slice(1)
  const date = nonEmpty(result.publishedDate)
  if (date) source.publishedDate = date
  source.kind = 'web'
  return source
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined
}
