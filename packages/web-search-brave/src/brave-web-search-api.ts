/**
 * Wire types of Brave Search's web search API (`GET /res/v1/web/search`), as
 * far as a search needs them, and tolerant parsers: unknown fields and
 * sections pass through untouched, only the envelope is checked.
 */

import { isObject, parseJsonBody, parseJsonObject } from 'dsh-provider-kit'


/** The query parameters this provider sends, in the order it sends them. */
export interface BraveWebSearchParams {
  q: string
  country?: string
  search_lang?: string
  ui_lang?: string
  /** 1..20 web results per page. */
  count: number
  /** Pages of `count` results to skip, 0..9. */
  offset: number
  safesearch?: 'off' | 'moderate' | 'strict'
  /** pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD. */
  freshness?: string
  text_decorations: 'false'
  result_filter: string
  extra_snippets?: 'true'
}

export interface BraveQuery {
  original?: string
  /** Set when Brave ran a spell-corrected query. */
  altered?: string
  more_results_available?: boolean
  [key: string]: unknown
}

export interface BraveWebResult {
  type?: string
  title?: string
  url: string
  description?: string
  /** A display date, e.g. "March 5, 2025" or "2 days ago". */
  age?: string
  /** ISO datetime, e.g. 2023-04-12T14:22:41. */
  page_age?: string
  extra_snippets?: string[]
  [key: string]: unknown
}

export interface BraveNewsResult extends BraveWebResult {
  source?: string
  breaking?: boolean
}

export interface BraveDiscussionResult {
  type?: 'discussion'
  title?: string
  url: string
  description?: string
  age?: string
  data?: { forum_name?: string; num_answers?: number; question?: string; top_comment?: string; [key: string]: unknown }
  [key: string]: unknown
}

export interface BraveResultSection<Result> {
  type?: string
  results?: Result[]
  [key: string]: unknown
}

/** Every section is optional: "the response will include the relevant keys based on the plan subscribed, query relevance or applied result_filter". */
export interface BraveWebSearchResponse {
  type: 'search'
  query?: BraveQuery
  web?: BraveResultSection<BraveWebResult>
  news?: BraveResultSection<BraveNewsResult>
  discussions?: BraveResultSection<BraveDiscussionResult>
  [section: string]: unknown
}

/** One error of the API: `code` is VALIDATION, SUBSCRIPTION_TOKEN_INVALID, RATE_LIMITED, QUOTA_LIMITED, OPTION_NOT_IN_PLAN, ... */
export interface BraveApiError {
  id?: string
  status?: number
  code?: string
  detail?: string
  meta?: { errors?: Array<{ loc?: unknown[]; msg?: string; type?: string; [key: string]: unknown }>; [key: string]: unknown }
}

/** Documented with `error`; the API reference's own example has an `errors` array. Both are read. */
export interface BraveErrorBody {
  type?: 'ErrorResponse'
  error?: BraveApiError
  errors?: BraveApiError[]
  time?: number
}

export type ParsedWebSearchBody =
  | { ok: true; response: BraveWebSearchResponse }
  | { ok: false; reason: string }

/** Checks the envelope only (a JSON object of type "search"); the sections are read by `fromBraveResponse`. */
export function parseBraveWebSearchResponse(text: string): ParsedWebSearchBody {
  const parsed = parseJsonBody(text)
  if (!parsed.ok) return parsed
  const { value } = parsed
  if (!isObject(value)) return { ok: false, reason: 'the body is not a JSON object' }
  if (value.type !== 'search') return { ok: false, reason: `the body's type is ${JSON.stringify(value.type ?? null)}, not "search"` }
  return { ok: true, response: value as BraveWebSearchResponse }
}

/** The error body's first error, from `error` or `errors[0]`; undefined when the body is not JSON or carries neither. */
export function parseBraveError(text: string): BraveApiError | undefined {
  const body = parseJsonObject(text) as BraveErrorBody | undefined
  if (!body) return undefined
  if (isObject(body.error)) return body.error
  if (Array.isArray(body.errors)) return body.errors.find(isObject)
  return undefined
}
