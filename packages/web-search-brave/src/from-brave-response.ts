import type { SearchSource, SearchSourceKind } from 'dsh-web'
import { isObject } from 'dsh-provider-kit'
import { type BraveDiscussionResult, type BraveWebResult, type BraveWebSearchResponse } from './brave-web-search-api.js'

/** What one page of the answer gives. */
export interface BravePage {
  /** The page's web results in Brave's order, as sources (kind `web`). */
  web: SearchSource[]
  /** News, then discussions (kinds `news` and `discussion`). */
  other: SearchSource[]
  /** `query.more_results_available`: only `true` lets a next page be asked for. */
  moreResults: boolean
  /** `query.altered`: the spell-corrected query Brave ran instead, when it did. */
  altered?: string
}

export interface BraveMappedResult {
  queries: string[]
  sources: SearchSource[]
  warnings: string[]
}

/**
 * One page, wire to neutral: an explicit switch over the sections. `web`,
 * `news` and `discussions` are mapped; `query` is read for paging and
 * spelling; anything else (the provider is asked only for these through
 * `result_filter`) is ignored on purpose.
 */
export function fromBravePage(response: BraveWebSearchResponse): BravePage {
  const page: BravePage = { web: [], other: [], moreResults: false }
  const news: SearchSource[] = []
  const discussions: SearchSource[] = []
  for (const [section, value] of Object.entries(response)) {
    switch (section) {
      case 'query':
        if (isObject(value)) {
          page.moreResults = value.more_results_available === true
          if (typeof value.altered === 'string' && value.altered.trim()) page.altered = value.altered
        }
        break
      case 'web':
        for (const result of resultsOf(value)) pushSource(page.web, toSource(result as BraveWebResult, 'web'))
        break
      case 'news':
        for (const result of resultsOf(value)) pushSource(news, toSource(result as BraveWebResult, 'news'))
        break
      case 'discussions':
        for (const result of resultsOf(value)) pushSource(discussions, toSource(result as BraveDiscussionResult, 'discussion'))
        break
      default:
        // type, mixed, videos, faq, infobox, locations, summarizer, rich and sections not invented yet: not asked for, not ours to read.
        break
    }
  }
  page.other = [...news, ...discussions]
  return page
}

/**
 * The pages together: web results of every page in order, unique by URL and
 * at most `maxResults` (the row's bound); then news and discussions not
 * already listed. `q` is the query sent; Brave's spelling correction, when it
 * ran one, replaces it in `queries` and is said in a warning.
 */
export function mergeBravePages(pages: readonly BravePage[], q: string, maxResults: number): BraveMappedResult {
  const sources: SearchSource[] = []
  const seen = new Set<string>()
  let webCount = 0
  for (const page of pages) {
    for (const source of page.web) {
      if (webCount >= maxResults || seen.has(source.url)) continue
      seen.add(source.url)
      sources.push(source)
      webCount++
    }
  }
  for (const page of pages) {
    for (const source of page.other) {
      if (seen.has(source.url)) continue
      seen.add(source.url)
      sources.push(source)
    }
  }
  const warnings: string[] = []
  const altered = pages[0]?.altered
  if (altered && altered !== q) warnings.push(`Brave Search corrected the spelling and ran ${JSON.stringify(altered)} instead of ${JSON.stringify(q)}.`)
  if (!sources.length) warnings.push('The web search returned no results.')
  return { queries: [altered ?? q], sources, warnings }
}

/** The number of distinct web results the pages hold, as `mergeBravePages` counts them (before the bound). */
export function countWebResults(pages: readonly BravePage[]): number {
  return new Set(pages.flatMap((page) => page.web.map((source) => source.url))).size
}

function resultsOf(section: unknown): Record<string, unknown>[] {
  if (!isObject(section) || !Array.isArray(section.results)) return []
  return section.results.filter(isObject)
}

function pushSource(list: SearchSource[], source: SearchSource | undefined): void {
  if (source && !list.some((listed) => listed.url === source.url)) list.push(source)
}

/**
 * One result as a source: `description` is the snippet (for a discussion
 * without one, the forum question), `page_age` (ISO) or else `age` the
 * date, `extra_snippets` the extra excerpts. A result without a URL is no source.
 */
function toSource(result: BraveWebResult | BraveDiscussionResult, kind: SearchSourceKind): SearchSource | undefined {
  if (typeof result.url !== 'string' || !result.url) return undefined
  const source: SearchSource = { url: result.url }
  if (typeof result.title === 'string' && result.title) source.title = result.title
  const question = isObject(result.data) && typeof result.data.question === 'string' ? result.data.question : undefined
  const snippet = nonEmpty(result.description) ?? (kind === 'discussion' ? nonEmpty(question) : undefined)
  if (snippet) source.snippet = snippet
  const date = nonEmpty(result.page_age) ?? nonEmpty(result.age)
  if (date) source.publishedDate = date
  const extra = Array.isArray(result.extra_snippets) ? result.extra_snippets.filter((text): text is string => typeof text === 'string' && text.trim() !== '') : []
  if (extra.length) source.extraSnippets = extra
  source.kind = kind
  return source
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined
}
