/**
 * Wire types of SearXNG's JSON search API (`GET /search?format=json`), as far
 * as a search needs them, and a tolerant parser: unknown fields pass through
 * untouched, only the envelope (an object with a `results` array) is checked.
 * Both generations are typed: answers as strings (older) or as objects (the
 * typed result types of 2025 on), `number_of_results` present or not (it was
 * removed in 2026.5.29). Sources: docs/providers.md, "SearXNG".
 */

import { isObject, parseJsonEnvelope, parseJsonObject } from 'dsh-provider-kit'


/** `safesearch`: 0 none, 1 moderate, 2 strict. */
export type SearxngSafeSearch = 0 | 1 | 2

/** `time_range`: the documented values, plus `week`, which the code accepts. */
export type SearxngTimeRange = 'day' | 'week' | 'month' | 'year'

/** The query parameters this provider sends, in the order it sends them. */
export interface SearxngSearchParams {
  q: string
  format: 'json'
  pageno: number
  language?: string
  safesearch?: SearxngSafeSearch
  time_range?: SearxngTimeRange
  /** Comma-separated category names; unknown ones are dropped by SearXNG. */
  categories?: string
  /** Comma-separated engine names (not shortcuts); unknown ones are dropped by SearXNG. */
  engines?: string
}

/** One entry of `results`: a typed MainResult or an engine's legacy dict; every field may be missing. */
export interface SearxngResult {
  url?: string | null
  title?: string
  /** Plain text in the JSON output; '' when it equalled the title. */
  content?: string
  /** The primary engine. */
  engine?: string
  /** Every engine that returned this result (a set, serialised as an array). */
  engines?: string[]
  /** ISO-8601, often without a time zone, or null. */
  publishedDate?: string | null
  pubdate?: string
  template?: string
  category?: string
  score?: number
  [key: string]: unknown
}

/** The newer generation's answer object; the older one sends plain strings. */
export interface SearxngAnswerObject {
  answer?: string
  url?: string | null
  engine?: string
  /** `answer/legacy.html`, `answer/translations.html`, `answer/weather.html`, ... */
  template?: string
  translations?: Array<{ text?: string; [key: string]: unknown }>
  [key: string]: unknown
}

export type SearxngAnswer = string | SearxngAnswerObject

export interface SearxngInfobox {
  /** The infobox's title. */
  infobox?: string
  /** Usually a URL; used by SearXNG to merge infoboxes. */
  id?: string
  content?: string
  img_src?: string
  urls?: Array<{ title?: string; url?: string; [key: string]: unknown }>
  attributes?: Array<{ label?: string; value?: unknown; [key: string]: unknown }>
  engine?: string
  engines?: string[]
  [key: string]: unknown
}

export interface SearxngSearchResponse {
  /** The query after SearXNG stripped its own prefixes (`!bang`, `:lang`). */
  query?: string
  /** Removed in 2026.5.29 and an engine estimate before that: never relied on. */
  number_of_results?: number
  results: SearxngResult[]
  answers?: SearxngAnswer[]
  corrections?: string[]
  infoboxes?: SearxngInfobox[]
  suggestions?: string[]
  /** `[engine, message]` pairs; the message is translated text, kept opaque. */
  unresponsive_engines?: unknown[]
}

/** What SearXNG sends with a 400 (and a 500): `{"error": "..."}`. */
export interface SearxngErrorBody {
  error?: string
  [key: string]: unknown
}

export type ParsedSearchBody =
  | { ok: true; response: SearxngSearchResponse }
  | { ok: false; reason: string }

/** Checks the envelope only; the entries are read by `collectSearxngPages`. */
export function parseSearxngSearchResponse(text: string): ParsedSearchBody {
  const parsed = parseJsonEnvelope(text, 'results')
  if (!parsed.ok) return parsed
  return { ok: true, response: { ...parsed.value, results: parsed.items } as unknown as SearxngSearchResponse }
}

/** Reads an error body defensively; undefined when it is not a JSON object. */
export function parseSearxngErrorBody(text: string): SearxngErrorBody | undefined {
  return parseJsonObject(text) as SearxngErrorBody | undefined
}

/**
 * `unresponsive_engines` as `[engine, reason]` pairs. Arrays are the wire
 * shape; an object with `engine`/`name` and `error_type`/`message` is read too,
 * anything else is skipped.
 */
export function unresponsiveEngines(response: SearxngSearchResponse): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (const entry of Array.isArray(response.unresponsive_engines) ? response.unresponsive_engines : []) {
    if (Array.isArray(entry) && typeof entry[0] === 'string') {
      pairs.push([entry[0], typeof entry[1] === 'string' ? entry[1] : ''])
    } else if (isObject(entry)) {
      const name = [entry.engine, entry.name].find((value): value is string => typeof value === 'string')
      const reason = [entry.error_type, entry.message, entry.error].find((value): value is string => typeof value === 'string')
      if (name) pairs.push([name, reason ?? ''])
    }
  }
  return pairs
}
