/**
 * Wire types of the Perplexity Search API (`POST /search`: ranked results
 * from Perplexity's index, no model turn), as far as a search needs them,
 * and tolerant parsers: unknown fields pass through untouched, only the
 * envelope (an object with a `results` array) is checked.
 */

import { isObject, parseJsonEnvelope, parseJsonObject } from 'dsh-provider-kit'


export type PerplexitySearchMode = 'web' | 'academic' | 'sec'
export type PerplexityRecency = 'hour' | 'day' | 'week' | 'month' | 'year'

/** The body this provider sends, in the order it sends it; unset fields are left out, never sent as null. */
export interface PerplexitySearchRequest {
  query: string
  max_results: number
  search_mode?: PerplexitySearchMode
  max_tokens_per_page?: number
  /** Domains to keep to, or (each prefixed with `-`) to leave out; at most 20. */
  search_domain_filter?: string[]
  search_recency_filter?: PerplexityRecency
  /** A two-letter country code the results are biased towards. */
  country?: string
}

export interface PerplexityResult {
  title?: string
  url?: string
  snippet?: string
  /** The publication date, when known (YYYY-MM-DD). */
  date?: string | null
  last_updated?: string | null
  [key: string]: unknown
}

export interface PerplexitySearchResponse {
  id?: string
  results: PerplexityResult[]
  server_time?: string
  [key: string]: unknown
}

/** The OpenAI-style envelope Perplexity answers errors with; a bare `detail` or `message` is read too. */
export interface PerplexityErrorBody {
  error?: { message?: string; type?: string; code?: number | string; [key: string]: unknown }
  detail?: unknown
  message?: unknown
  [key: string]: unknown
}

export type ParsedPerplexityBody = { ok: true; response: PerplexitySearchResponse } | { ok: false; reason: string }

/** Checks the envelope only: a JSON object with a `results` array (entries that are not objects are dropped). */
export function parsePerplexitySearchResponse(text: string): ParsedPerplexityBody {
  const parsed = parseJsonEnvelope(text, 'results')
  if (!parsed.ok) return parsed
  return { ok: true, response: { ...parsed.value, results: parsed.items } as PerplexitySearchResponse }
}

/** The error's message and type, from whichever of the known shapes the body has; undefined when it has neither. */
export function parsePerplexityError(text: string): { message?: string; type?: string } | undefined {
  const body = parseJsonObject(text) as PerplexityErrorBody | undefined
  if (!body) return undefined
  const nonEmpty = (value: unknown) => (typeof value === 'string' && value.trim() ? value : undefined)
  const envelope = isObject(body.error) ? body.error : undefined
  const message = nonEmpty(envelope?.message) ?? nonEmpty(body.detail) ?? nonEmpty(body.message) ?? nonEmpty(body.error)
  const type = nonEmpty(envelope?.type)
  return message || type ? { ...(message ? { message } : {}), ...(type ? { type } : {}) } : undefined
}
