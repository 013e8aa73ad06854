/**
 * Wire types of the OpenAI Responses API, as far as a search needs them, and a
 * tolerant parser: unknown fields, item types, part types and annotation types
 * pass through untouched, only the envelope is checked.
 */

import { parseJsonEnvelope, parseJsonObject } from 'dsh-provider-kit'


export interface OpenAIUserLocation {
  type: 'approximate'
  city?: string
  region?: string
  country?: string
  timezone?: string
}

export type OpenAISearchContextSize = 'low' | 'medium' | 'high'

export interface OpenAIWebSearchTool {
  type: 'web_search'
  search_context_size?: OpenAISearchContextSize
  user_location?: OpenAIUserLocation
  filters?: { allowed_domains: string[] }
}

export interface OpenAIResponsesRequest {
  model: string
  input: string
  tools: OpenAIWebSearchTool[]
  include: ['web_search_call.action.sources']
  store: false
}

export interface OpenAISearchAction {
  type: 'search'
  /** Deprecated by OpenAI in favour of `queries`. */
  query?: string
  queries?: string[]
  /** Present when `web_search_call.action.sources` is included; entries without a url are skipped. */
  sources?: Array<{ type?: string; url?: string; [key: string]: unknown }>
}

export type OpenAIWebSearchAction =
  | OpenAISearchAction
  | { type: 'open_page'; url?: string }
  | { type: 'find_in_page'; url?: string; pattern?: string }
  | { type: string; [key: string]: unknown }

export interface OpenAIWebSearchCall {
  type: 'web_search_call'
  id: string
  /** in_progress, searching, completed, failed */
  status?: string
  action?: OpenAIWebSearchAction
}

export interface OpenAIUrlCitation {
  type: 'url_citation'
  url: string
  title?: string
  start_index?: number
  end_index?: number
}

export type OpenAIAnnotation = OpenAIUrlCitation | { type: string; [key: string]: unknown }

export interface OpenAIOutputText {
  type: 'output_text'
  text: string
  annotations?: OpenAIAnnotation[] | null
}

export interface OpenAIRefusal {
  type: 'refusal'
  refusal: string
}

export type OpenAIContentPart = OpenAIOutputText | OpenAIRefusal | { type: string; [key: string]: unknown }

export interface OpenAIOutputMessage {
  type: 'message'
  id?: string
  role?: string
  status?: string
  content: OpenAIContentPart[]
}

export type OpenAIOutputItem = OpenAIWebSearchCall | OpenAIOutputMessage | { type: string; [key: string]: unknown }

export interface OpenAIResponse {
  id?: string
  object?: string
  /** completed, incomplete, failed, in_progress, queued, cancelled */
  status?: string
  error?: { code?: string | null; message?: string | null } | null
  incomplete_details?: { reason?: string | null } | null
  model?: string
  output: OpenAIOutputItem[]
  usage?: { input_tokens?: number; output_tokens?: number; [key: string]: unknown } | null
}

export interface OpenAIErrorBody {
  error?: { message?: string; type?: string; param?: string | null; code?: string | null }
}

export type ParsedResponsesBody = { ok: true; response: OpenAIResponse } | { ok: false; reason: string }

/** Checks the envelope only; the items are read by `fromOpenAIResponse`. */
export function parseOpenAIResponse(text: string): ParsedResponsesBody {
  const parsed = parseJsonEnvelope(text, 'output')
  if (!parsed.ok) return parsed
  return { ok: true, response: { ...parsed.value, output: parsed.items } as unknown as OpenAIResponse }
}

/** Reads an error body defensively; undefined when it is not JSON. */
export function parseOpenAIErrorBody(text: string): OpenAIErrorBody | undefined {
  return parseJsonObject(text) as OpenAIErrorBody | undefined
}
