/**
 * Wire types of Exa's search endpoint (`POST /search`, search with
 * contents), as far as a search needs them, and tolerant parsers: unknown
 * fields pass through untouched, only the envelope (an object with a
 * `results` array) is checked.
 */

import { isObject, parseJsonEnvelope, parseJsonObject } from 'dsh-provider-kit'


export type ExaSearchType = 'auto' | 'neural' | 'fast' | 'instant' | 'keyword'

/** The page text Exa returns with each result: its query-relevant excerpts, or the start of the page. */
export type ExaSnippetSource = 'highlights' | 'text'

export interface ExaContentsRequest {
  highlights?: { maxCharacters: number }
  text?: { maxCharacters: number }
}

/** The body this provider sends, in the order it sends it; unset fields are left out. */
export interface ExaSearchRequest {
  query: string
  numResults: number
  type?: ExaSearchType
  includeDomains?: string[]
  excludeDomains?: string[]
  /** ISO 8601: only results Exa dates at or after it. */
  startPublishedDate?: string
  /** A two-letter ISO country code. */
  userLocation?: string
  contents: ExaContentsRequest
}

export interface ExaResult {
  title?: string | null
  url?: string
  id?: string
  /** Exa's estimate of when the page was created, ISO 8601. */
  publishedDate?: string | null
  author?: string | null
  score?: number
  text?: string
  highlights?: string[]
  highlightScores?: number[]
  summary?: string
  [key: string]: unknown
}

export interface ExaSearchResponse {
  requestId?: string
  resolvedSearchType?: string
  results: ExaResult[]
  costDollars?: { total?: number; [key: string]: unknown }
  searchTime?: number
  [key: string]: unknown
}

/** What Exa's SDK reads of an error body: `error` (the message), `message`, and the `tag` and `requestId` Exa adds. */
export interface ExaErrorBody {
  error?: string
  message?: string
  tag?: string
  requestId?: string
  [key: string]: unknown
}

export type ParsedExaBody = { ok: true; response: ExaSearchResponse } | { ok: false; reason: string }

/** Checks the envelope only: a JSON object with a `results` array (entries that are not objects are dropped). */
export function parseExaSearchResponse(text: string): ParsedExaBody {
  const parsed = parseJsonEnvelope(text, 'results')
  if (!parsed.ok) return parsed
  return { ok: true, response: { ...parsed.value, results: parsed.items } as ExaSearchResponse }
}

/** The error body's fields that are non-empty strings; undefined when the body is not JSON or has none. */
export function parseExaError(text: string): { message?: string; tag?: string; requestId?: string } | undefined {
  const body = parseJsonObject(text) as ExaErrorBody | undefined
  if (!body) return undefined
  const nonEmpty = (value: unknown) => (typeof value === 'string' && value.trim() ? value : undefined)
  const message = [nonEmpty(body.error), nonEmpty(body.message)].filter(Boolean).join('. ') || undefined
  const found = { message, tag: nonEmpty(body.tag), requestId: nonEmpty(body.requestId) }
  return found.message || found.tag ? found : undefined
}
