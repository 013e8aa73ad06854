/**
 * Wire types of the Tavily Search API (`POST /search`), as far as a search
 * needs them, and tolerant parsers: unknown fields pass through untouched,
 * only the envelope (an object with a `results` array) is checked.
 */

import { isObject, parseJsonEnvelope, parseJsonObject } from 'dsh-provider-kit'


export type TavilySearchDepth = 'basic' | 'advanced' | 'fast' | 'ultra-fast'
export type TavilyTopic = 'general' | 'news' | 'finance'
export type TavilyTimeRange = 'day' | 'week' | 'month' | 'year'
/** `true` or `basic`: a quick answer; `advanced`: a longer one. */
export type TavilyIncludeAnswer = 'basic' | 'advanced'

/** The body this provider sends, in the order it sends it; unset fields are left out, never sent as null. */
export interface TavilySearchRequest {
  query: string
  max_results: number
  search_depth?: TavilySearchDepth
  topic?: TavilyTopic
  include_answer?: TavilyIncludeAnswer
  include_domains?: string[]
  exclude_domains?: string[]
  time_range?: TavilyTimeRange
}

export interface TavilyResult {
  title?: string
  url?: string
  /** The snippet: a summary of the page or its reranked chunks, depending on search_depth. */
  content?: string
  /** Relevance, 0..1; the results come sorted by it. */
  score?: number
  raw_content?: string | null
  /** Sent for topic `news`. */
  published_date?: string
  favicon?: string
  [key: string]: unknown
}

export interface TavilySearchResponse {
  query?: string
  /** LLM-generated when include_answer is set. */
  answer?: string | null
  images?: unknown[]
  results: TavilyResult[]
  response_time?: number | string
  usage?: { credits?: number; [key: string]: unknown }
  request_id?: string
  [key: string]: unknown
}

/**
 * The error bodies seen: `{"detail": {"error": "..."}}` (what the official SDK
 * reads), FastAPI's `{"detail": "..."}` and the keyless envelope
 * `{"error": {"code", "message", "retry_after_seconds"}}`.
 */
export interface TavilyErrorBody {
  detail?: { error?: string; [key: string]: unknown } | string
  error?: { code?: string; message?: string; retry_after_seconds?: number; [key: string]: unknown }
  [key: string]: unknown
}

export type ParsedTavilyBody = { ok: true; response: TavilySearchResponse } | { ok: false; reason: string }

/** Checks the envelope only: a JSON object with a `results` array (entries that are not objects are dropped). */
export function parseTavilySearchResponse(text: string): ParsedTavilyBody {
  const parsed = parseJsonEnvelope(text, 'results')
  if (!parsed.ok) return parsed
  return { ok: true, response: { ...parsed.value, results: parsed.items } as TavilySearchResponse }
}

/** The error's message and code, from whichever of the known shapes the body has; undefined when it has none. */
export function parseTavilyError(text: string): { message?: string; code?: string; retryAfterSeconds?: number } | undefined {
  const body = parseJsonObject(text) as TavilyErrorBody | undefined
  if (!body) return undefined
  if (typeof body.detail === 'string' && body.detail.trim()) return { message: body.detail }
  if (isObject(body.detail) && typeof body.detail.error === 'string' && body.detail.error.trim()) return { message: body.detail.error }
  if (isObject(body.error)) {
    const { code, message, retry_after_seconds: retry } = body.error
    const found: { message?: string; code?: string; retryAfterSeconds?: number } = {}
    if (typeof message === 'string' && message.trim()) found.message = message
    if (typeof code === 'string' && code.trim()) found.code = code
    if (typeof retry === 'number' && Number.isFinite(retry) && retry >= 0) found.retryAfterSeconds = retry
    return Object.keys(found).length ? found : undefined
  }
  return undefined
}
