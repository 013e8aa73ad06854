import { type Citation, type SearchCacheHit, type SearchFilterName, type SearchFilterReport, type SearchRequest, type SearchResult, type SearchUsage, WebError } from 'dsh-web'
import { type ArtifactRef } from 'dsh-host'
import { hasUrl, type MergedSource, mergeSources } from './merge-sources.js'

/** One query that did not return, with its typed failure. */
export interface QueryFailure {
  query: string
  code: string
  message: string
  retryable: boolean
  /** How long the provider asked to wait before a retry, when it said. */
  retryAfterMs?: number
}

/** A provider's answer to one query: prose by its model, or a search engine's instant answer (modelWritten false); never page text. */
export interface QueryAnswer {
  query: string
  text: string
  citations: Citation[]
  modelWritten: boolean
}

/** The structured output of `web_search`: what programs and PTC code receive. */
export interface WebSearchOutput {
  providerId: string | null
  /** The queries as asked. */
  queries: string[]
  /** The queries the provider's search actually ran, across all asked queries. */
  queriesRun: string[]
  /** Every source returned, merged round-robin by rank, unique by URL. */
  sources: MergedSource[]
  answers: QueryAnswer[]
  /** Per requested or reported filter: whether the provider applied it for every query that returned. */
  filters: SearchFilterReport[]
  usage?: SearchUsage
  failures: QueryFailure[]
  warnings: string[]
  /** The queries answered from the seam's search cache (only when the operator turned it on), each with when, which provider, and the logged requests behind it. */
  fromCache?: (SearchCacheHit & { query: string })[]
  /** Set when the model-facing text was above the output threshold. */
  artifact?: ArtifactRef
}

export type QuerySettlement = { query: string; result: SearchResult } | { query: string; error: WebError }

/** Builds the neutral structured output from the settled queries, in the order asked. */
export function buildSearchOutput(request: Omit<SearchRequest, 'query'>, settled: QuerySettlement[]): WebSearchOutput {
  const results: { index: number; query: string; result: SearchResult }[] = []
  const failures: QueryFailure[] = []
  settled.forEach((entry, index) => {
    if ('result' in entry) results.push({ index, query: entry.query, result: entry.result })
    else failures.push(toFailure(entry.query, entry.error))
  })

  const providerId = results[0]?.result.providerId ?? firstProviderId(settled) ?? null
  const queriesRun: string[] = []
  for (const { result } of results) {
    for (const ran of result.queries ?? []) if (!queriesRun.includes(ran)) queriesRun.push(ran)
  }
  const answers: QueryAnswer[] = []
  for (const { query, result } of results) {
    if (result.answer?.text) answers.push({ query, text: result.answer.text, citations: result.answer.citations ?? [], modelWritten: result.answer.modelWritten !== false })
  }
  const warnings: string[] = []
  for (const { query, result } of results) {
    const noted = (warning: string) => warnings.push(settled.length > 1 ? `${JSON.stringify(query)}: ${warning}` : warning)
    for (const warning of result.warnings ?? []) noted(warning)
    const unlinked = (result.sources ?? []).filter((source) => !hasUrl(source)).length
    if (unlinked) noted(`${unlinked} source${unlinked === 1 ? '' : 's'} without a URL left out (nothing to cite or fetch).`)
  }

  const output: WebSearchOutput = {
    providerId,
    queries: settled.map((entry) => entry.query),
    queriesRun,
    sources: mergeSources(results.map(({ index, result }) => ({ query: index, sources: result.sources ?? [] }))),
    answers,
    filters: mergeFilters(request, results.map(({ result }) => result.filters ?? [])),
    failures,
    warnings,
  }
  const usage = sumUsage(results.map(({ result }) => result.usage))
  if (usage) output.usage = usage
  const cached = results.flatMap(({ query, result }) => (result.fromCache ? [{ query, ...result.fromCache }] : []))
  if (cached.length) output.fromCache = cached
  return output
}

function toFailure(query: string, error: WebError): QueryFailure {
  const failure: QueryFailure = { query, code: error.code, message: error.message, retryable: error.retryable }
  if (typeof error.details.retryAfterMs === 'number') failure.retryAfterMs = error.details.retryAfterMs
  return failure
}

function firstProviderId(settled: QuerySettlement[]): string | undefined {
  for (const entry of settled) {
    if ('error' in entry && typeof entry.error.details.providerId === 'string') return entry.error.details.providerId
  }
  return undefined
}

/**
 * One report per filter: honoured only when every query that returned says so.
 * A filter that was asked for and that the provider did not mention is
 * reported as not honoured, never left out.
 */
export function mergeFilters(request: Omit<SearchRequest, 'query'>, reports: SearchFilterReport[][]): SearchFilterReport[] {
  const requested: SearchFilterName[] = []
  if (request.allowedDomains) requested.push('allowed_domains')
  if (request.blockedDomains) requested.push('blocked_domains')
  if (request.userLocation) requested.push('user_location')
  if (request.recency) requested.push('recency')
  const names: SearchFilterName[] = [...requested]
  for (const list of reports) for (const report of list) if (!names.includes(report.filter)) names.push(report.filter)
  return names.map((filter) => {
    const found = reports.map((list) => list.find((report) => report.filter === filter))
    const notes = [...new Set(found.map((report) => report?.note).filter((note): note is string => !!note))]
    if (reports.length && found.some((report) => !report)) notes.push('the provider did not report this filter for every query')
    const honoured = reports.length > 0 && found.every((report) => report?.honoured === true)
    return notes.length ? { filter, honoured, note: notes.join('; ') } : { filter, honoured }
  })
}

function sumUsage(usages: (SearchUsage | undefined)[]): SearchUsage | undefined {
  const total: SearchUsage = {}
  let any = false
  for (const usage of usages) {
    if (!usage) continue
    for (const key of ['searchRequests', 'inputTokens', 'outputTokens'] as const) {
      const value = usage[key]
      if (typeof value === 'number') {
        total[key] = (total[key] ?? 0) + value
        any = true
      }
    }
  }
  return any ? total : undefined
}
