/**
 * Wire helpers that are the same for every model API: tolerant reading of
 * JSON bodies (only the envelope is checked; unknown fields pass through
 * untouched), the versioned endpoint, the request's domain lists, and the
 * neutral result. Pure; part of `dsh-web/provider-http`.
 */

import type { SearchFilterReport, SearchRequest, SearchResult } from './types.js'

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The body as a JSON object; undefined when it is not JSON or not an object (a proxy's HTML page, say). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? value : undefined
  } catch {
    return undefined
  }
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
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'the body is not JSON' }
  }
  if (!isObject(value)) return { ok: false, reason: 'the body is not a JSON object' }
  const list = value[listKey]
  if (!Array.isArray(list)) return { ok: false, reason: `the body has no \`${listKey}\` array` }
  return { ok: true, value, items: list.filter(isObject) }
}

/**
 * `{base}/v1/{resource}`, or `{base}/{resource}` when the base already ends in
 * /v1. Query and fragment are dropped; a base that is not http(s) throws.
 */
export function versionedEndpoint(baseURL: string, resource: string): URL {
  const url = new URL(baseURL)
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`unsupported protocol ${url.protocol}`)
  url.search = ''
  url.hash = ''
  const path = url.pathname.replace(/\/+$/, '')
  url.pathname = /\/v1$/.test(path) ? `${path}/${resource}` : `${path}/v1/${resource}`
  return url
}

/** A request's domain list trimmed, without empty entries and duplicates, in order. */
export function cleanDomains(domains: string[] | undefined): string[] {
  if (!domains) return []
  const seen = new Set<string>()
  for (const domain of domains) {
    const trimmed = domain.trim()
    if (trimmed) seen.add(trimmed)
  }
  return [...seen]
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
