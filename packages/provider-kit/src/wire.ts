/**
 * Wire helpers that are the same for every model API: tolerant reading of
 * JSON bodies (only the envelope is checked; unknown fields pass through
 * untouched), the versioned endpoint, the request's domain lists and their
 * check against the returned sources, and the neutral result. Pure.
 */

import { DomainList, DomainListError } from 'dsh-host'
import { type SearchFilterReport, type SearchRecency, type SearchRequest, type SearchResult, type SearchSource, WebError } from 'dsh-web'

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * How deep a provider's answer may nest. Real answers nest about ten levels;
 * the parse (V8's is iterative) accepts any depth, but every walk after it
 * (key scrubbing, mapping, the session log's JSON) would have to be written
 * for it, so a deeper answer is refused here, once, as a bad response.
 */
export const MAX_ANSWER_DEPTH = 100

export type ParsedJson = { ok: true; value: unknown } | { ok: false; reason: string }

/** The body as JSON, nested `MAX_ANSWER_DEPTH` levels at most; `reason` completes "answered HTTP 200 but ...". */
export function parseJsonBody(text: string): ParsedJson {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'the body is not JSON' }
  }
  if (nestsDeeperThan(value, MAX_ANSWER_DEPTH)) return { ok: false, reason: `the body is nested more than ${MAX_ANSWER_DEPTH} levels deep` }
  return { ok: true, value }
}

/** Whether a JSON value holds arrays or objects more than `limit` levels deep; an explicit stack, so any depth is measured without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[item: unknown, depth: number]> = [[value, 0]]
  while (pending.length) {
    const [item, depth] = pending.pop()!
    if (item === null || typeof item !== 'object') continue
    if (depth + 1 > limit) return true
    for (const entry of Array.isArray(item) ? item : Object.values(item)) if (entry !== null && typeof entry === 'object') pending.push([entry, depth + 1])
  }
  return false
}

/** The body as a JSON object; undefined when it is not JSON, not an object (a proxy's HTML page, say) or nested too deep. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const parsed = parseJsonBody(text)
  return parsed.ok && isObject(parsed.value) ? parsed.value : undefined
}

export type ParsedJsonEnvelope =
  | { ok: true; value: Record<string, unknown>; items: Record<string, unknown>[] }
  | { ok: false; reason: string }

/**
 * A JSON object whose `listKey` must be an array, e.g. `content` of a Messages
 * answer or `output` of a Responses answer. Entries that are not objects are
 * dropped from `items`; reading them is the vendor mapper's job. `reason`
 * completes "answered HTTP 200 but ...".
 */
export function parseJsonEnvelope(text: string, listKey: string): ParsedJsonEnvelope {
  const parsed = parseJsonBody(text)
  if (!parsed.ok) return parsed
  const { value } = parsed
  if (!isObject(value)) return { ok: false, reason: 'the body is not a JSON object' }
  const list = value[listKey]
  if (!Array.isArray(list)) return { ok: false, reason: `the body has no \`${listKey}\` array` }
  return { ok: true, value, items: list.filter(isObject) }
}

/**
 * A base URL as every endpoint starts from it: http(s) only (anything else
 * throws), query and fragment dropped, and its path without trailing slashes
 * for the vendor to append to.
 */
export function apiBase(baseURL: string): { url: URL; path: string } {
  const url = new URL(baseURL)
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`unsupported protocol ${url.protocol}`)
  url.search = ''
  url.hash = ''
  return { url, path: url.pathname.replace(/\/+$/, '') }
}

/** `{base}/{resource}`. Query and fragment are dropped; a base that is not http(s) throws. */
export function appendedEndpoint(baseURL: string, resource: string): URL {
  const { url, path } = apiBase(baseURL)
  url.pathname = `${path}/${resource}`
  return url
}

/**
 * `{base}/v1/{resource}`, or `{base}/{resource}` when the base already ends in
 * /v1. Query and fragment are dropped; a base that is not http(s) throws.
 */
export function versionedEndpoint(baseURL: string, resource: string): URL {
  const { url, path } = apiBase(baseURL)
  url.pathname = /\/v1$/.test(path) ? `${path}/${resource}` : `${path}/v1/${resource}`
  return url
}

/**
 * A request's domain list, each entry checked and normalised by the one
 * matcher (dsh-host's `DomainList`; `bücher.example` becomes
 * `xn--bcher-kva.example`), without duplicates, in order: what is sent to the
 * vendor. An entry that is not an accepted form is INVALID_ARGUMENT, naming it.
 */
export function cleanDomains(domains: string[] | undefined, name = 'domains'): string[] {
  return domains ? requestDomainList(domains, name).texts() : []
}

function requestDomainList(domains: readonly string[], name: string): DomainList {
  try {
    return DomainList.parse(domains, name)
  } catch (error) {
    if (DomainListError.is(error)) throw new WebError('INVALID_ARGUMENT', error.message, { cause: error, details: { argument: name } })
    throw error
  }
}

// ---------------------------------------------------------------- domain filters, checked against the sources

export type DomainFilterName = 'allowed_domains' | 'blocked_domains'

/** How the returned sources stand against one requested domain list. Sources are only read, never removed. */
export interface DomainFilterCheck {
  filter: DomainFilterName
  /** The requested list, normalised (see `cleanDomains`). */
  domains: string[]
  /** How many sources were checked: all of them. */
  checked: number
  /**
   * URLs of the sources the filter does not hold for, in the sources' order:
   * not on an allowed domain, or on a blocked one. A URL that does not parse
   * as http(s) cannot be shown to comply and counts as outside both lists.
   */
  outside: string[]
}

function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url)
    return protocol === 'https:' || protocol === 'http:'
  } catch {
    return false
  }
}

/**
 * Checks the sources against each domain list the request carries (allowed
 * first, then blocked; none when it carries neither), with the one matcher:
 * an entry means what docs/security.md, "Domain lists", says, and a source
 * URL that is not http(s) is on no entry. What the provider was
 * sent does not matter here: this says whether the filter holds for what came
 * back, so a provider can report `honoured` truthfully.
 */
export function checkDomainFilters(sources: readonly SearchSource[], request: Pick<SearchRequest, 'allowedDomains' | 'blockedDomains'>): DomainFilterCheck[] {
  const checks: DomainFilterCheck[] = []
  const allowed = requestDomainList(request.allowedDomains ?? [], 'allowedDomains')
  const blocked = requestDomainList(request.blockedDomains ?? [], 'blockedDomains')
  if (allowed.size) {
    const outside = sources.filter((source) => !allowed.includes(source.url)).map((source) => source.url)
    checks.push({ filter: 'allowed_domains', domains: allowed.texts(), checked: sources.length, outside })
  }
  if (blocked.size) {
    const outside = sources.filter((source) => !isHttpUrl(source.url) || blocked.includes(source.url)).map((source) => source.url)
    checks.push({ filter: 'blocked_domains', domains: blocked.texts(), checked: sources.length, outside })
  }
  return checks
}

/** Hosts named in a note: at most this many, then "and N more". */
const NAMED_HOSTS = 3

/**
 * What a check found, as a clause for a filter note, e.g. "2 of 5 sources are
 * outside the allowed domains (github.com, example.org)" or "all 4 sources are
 * on the allowed domains".
 */
export function describeDomainCheck(check: DomainFilterCheck): string {
  const { checked, outside } = check
  const where = check.filter === 'allowed_domains' ? 'outside the allowed domains' : 'on the blocked domains'
  if (checked === 0) return 'no sources came back to check it against'
  if (!outside.length) {
    if (check.filter === 'allowed_domains') return checked === 1 ? 'the one source is on the allowed domains' : `all ${checked} sources are on the allowed domains`
    return checked === 1 ? 'the one source is not on the blocked domains' : `none of the ${checked} sources is on the blocked domains`
  }
  const hosts = [...new Set(outside.map(hostOf))]
  const named = hosts.slice(0, NAMED_HOSTS).join(', ') + (hosts.length > NAMED_HOSTS ? ` and ${hosts.length - NAMED_HOSTS} more` : '')
  return `${outside.length} of ${checked} source${checked === 1 ? '' : 's'} ${outside.length === 1 ? 'is' : 'are'} ${where} (${named})`
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || url
  } catch {
    return 'an unparseable URL'
  }
}

/**
 * The report of a domain filter that was sent to the provider: honoured only
 * when every returned source complies (vacuously so when none came back),
 * whatever the provider's documentation promises.
 */
export function sentDomainFilterReport(check: DomainFilterCheck, providerName: string): SearchFilterReport {
  const honoured = check.outside.length === 0
  return { filter: check.filter, honoured, note: `sent to ${providerName}${honoured ? '; ' : ', but '}${describeDomainCheck(check)}` }
}

/** What a vendor's answer mapper gives: everything of a result that comes from the wire. */
export type MappedSearch = Pick<SearchResult, 'queries' | 'sources' | 'answer' | 'usage' | 'warnings'>

/** The neutral result: the request's query, the mapped answer and the filters the wire took. */
export function toSearchResult(providerId: string, request: SearchRequest, mapped: MappedSearch, filters: SearchFilterReport[]): SearchResult {
  const result: SearchResult = {
    providerId,
    query: request.query,
    queries: mapped.queries,
    sources: mapped.sources,
    filters,
    warnings: mapped.warnings,
  }
  if (mapped.answer) result.answer = mapped.answer
  if (mapped.usage) result.usage = mapped.usage
  return result
}

const RECENCIES: readonly SearchRecency[] = ['day', 'week', 'month', 'year']

/** The request's recency, checked: one of day, week, month, year, or none; anything else is INVALID_ARGUMENT. */
export function requestRecency(request: Pick<SearchRequest, 'recency'>): SearchRecency | undefined {
  const { recency } = request
  if (recency === undefined) return undefined
  if (!RECENCIES.includes(recency)) {
    throw new WebError('INVALID_ARGUMENT', `recency must be one of ${RECENCIES.join(', ')}; got ${JSON.stringify(String(recency)).slice(0, 40)}.`, { details: { argument: 'recency' } })
  }
  return recency
}
