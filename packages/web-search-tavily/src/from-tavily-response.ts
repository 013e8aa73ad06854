import type { SearchAnswer, SearchSource } from 'dsh-web'
import type { MappedSearch } from 'dsh-provider-kit'
import type { TavilyResult, TavilySearchResponse } from './tavily-search-api.js'

/**
 * The answer, wire to neutral: `results` in Tavily's order (sorted by score),
 * unique by URL (the first wins), each with `content` as its snippet and
 * `published_date` as its date; `answer`, when Tavily wrote one, is the
 * answer an LLM wrote (`modelWritten`), without citations, since Tavily ties
 * none of its sentences to a result. Other fields (`images`, `usage`,
 * `raw_content`, fields not invented yet) are ignored on purpose.
 */
export function fromTavilyResponse(response: TavilySearchResponse, query: string, kind: SearchSource['kind']): MappedSearch {
  const sources: SearchSource[] = []
  for (const result of response.results) {
    const source = toSource(result, kind)
    if (source && !sources.some((listed) => listed.url === source.url)) sources.push(source)
  }
  const mapped: MappedSearch = { queries: [query], sources, warnings: [] }
  const text = nonEmpty(response.answer)
  if (text) mapped.answer = { text, citations: [], modelWritten: true } satisfies SearchAnswer
  if (!sources.length) mapped.warnings.push('The web search returned no results.')
  return mapped
}

function toSource(result: TavilyResult, kind: SearchSource['kind']): SearchSource | undefined {
  if (typeof result.url !== 'string' || !result.url) return undefined
  const source: SearchSource = { url: result.url }
  const title = nonEmpty(result.title)
  if (title) source.title = title
  const snippet = nonEmpty(result.content)
  if (snippet) source.snippet = snippet
  const date = nonEmpty(result.published_date)
  if (date) source.publishedDate = date
  if (kind) source.kind = kind
  return source
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined
}
