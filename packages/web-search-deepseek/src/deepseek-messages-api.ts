/**
 * Wire types of DeepSeek's Anthropic-compatible Messages API, as far as a
 * search needs them, and a tolerant parser: unknown fields and block types pass
 * through untouched, only the envelope is checked.
 */

import { parseJsonEnvelope, parseJsonObject } from 'dsh-provider-kit'

export { isObject } from 'dsh-provider-kit'

export interface DeepSeekUserLocation {
  type: 'approximate'
  city?: string
  region?: string
  country?: string
  timezone?: string
}

export interface DeepSeekWebSearchTool {
  type: 'web_search_20250305'
  name: 'web_search'
  max_uses?: number
  allowed_domains?: string[]
  blocked_domains?: string[]
  user_location?: DeepSeekUserLocation
}

export interface DeepSeekMessagesRequest {
  model: string
  max_tokens: number
  messages: Array<{ role: 'user'; content: string }>
  tools: DeepSeekWebSearchTool[]
}

export interface DeepSeekWebSearchResultLocation {
  type: 'web_search_result_location'
  url: string
  title?: string | null
  cited_text?: string
  encrypted_index?: string
}

/** Other citation kinds (char_location, ...) are ignored. */
export type DeepSeekCitation = DeepSeekWebSearchResultLocation | { type: string; [key: string]: unknown }

export interface DeepSeekTextBlock {
  type: 'text'
  text: string
  citations?: DeepSeekCitation[] | null
}

export interface DeepSeekServerToolUseBlock {
  type: 'server_tool_use'
  id: string
  name: string
  input: { query?: string; [key: string]: unknown }
}

export interface DeepSeekWebSearchResult {
  type: 'web_search_result'
  url: string
  title?: string | null
  page_age?: string | null
  encrypted_content?: string
}

export interface DeepSeekWebSearchToolResultError {
  type: 'web_search_tool_result_error'
  /** too_many_requests, invalid_input, invalid_tool_input, max_uses_exceeded, query_too_long, unavailable, ...: any string. */
  error_code: string
}

export interface DeepSeekWebSearchToolResultBlock {
  type: 'web_search_tool_result'
  tool_use_id: string
  content: DeepSeekWebSearchResult[] | DeepSeekWebSearchToolResultError
}

export interface DeepSeekUnknownBlock {
  type: string
  [key: string]: unknown
}

export type DeepSeekContentBlock =
  | DeepSeekTextBlock
  | DeepSeekServerToolUseBlock
  | DeepSeekWebSearchToolResultBlock
  | DeepSeekUnknownBlock

export interface DeepSeekUsage {
  input_tokens?: number
  output_tokens?: number
  server_tool_use?: { web_search_requests?: number; [key: string]: unknown } | null
  [key: string]: unknown
}

export interface DeepSeekMessagesResponse {
  id?: string
  type?: string
  role?: string
  model?: string
  content: DeepSeekContentBlock[]
  /** end_turn, max_tokens, stop_sequence, tool_use, pause_turn, refusal, model_context_window_exceeded, ... */
  stop_reason?: string | null
  usage?: DeepSeekUsage | null
}

/** Both the Anthropic envelope and the OpenAI-style one carry `error.message`. */
export interface DeepSeekErrorBody {
  type?: 'error'
  error?: { type?: string; message?: string; code?: string | null; param?: string | null }
  request_id?: string
}

export type ParsedMessagesBody =
  | { ok: true; response: DeepSeekMessagesResponse }
  | { ok: false; reason: string }

/** Checks the envelope only; the blocks are read by `fromDeepSeekResponse`. */
export function parseDeepSeekMessagesResponse(text: string): ParsedMessagesBody {
  const parsed = parseJsonEnvelope(text, 'content')
  if (!parsed.ok) return parsed
  return { ok: true, response: { ...parsed.value, content: parsed.items } as unknown as DeepSeekMessagesResponse }
}

/** Reads an error body defensively; undefined when it is not JSON. */
export function parseDeepSeekErrorBody(text: string): DeepSeekErrorBody | undefined {
  return parseJsonObject(text) as DeepSeekErrorBody | undefined
}
