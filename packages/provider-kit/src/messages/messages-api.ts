/**
 * The Anthropic Messages API as a search needs it: wire types and a tolerant
 * parser, shared by every provider that speaks this wire (Anthropic itself,
 * DeepSeek's Anthropic-compatible endpoint). Unknown fields and block types
 * pass through untouched; only the envelope is checked. What differs per
 * vendor (versions, headers, defaults, the tool version) stays in its package.
 */

import { parseJsonEnvelope, parseJsonObject, versionedEndpoint } from '../wire.js'

export interface MessagesUserLocation {
  type: 'approximate'
  city?: string
  region?: string
  country?: string
  timezone?: string
}

/** The server-side web search tool; `type` is the dated version the vendor takes, e.g. web_search_20250305. */
export interface MessagesWebSearchTool {
  type: string
  name: 'web_search'
  max_uses?: number
  allowed_domains?: string[]
  blocked_domains?: string[]
  user_location?: MessagesUserLocation
}

export interface MessagesRequest {
  model: string
  max_tokens: number
  messages: Array<{ role: 'user'; content: string }>
  tools: MessagesWebSearchTool[]
}

export interface MessagesWebSearchResultLocation {
  type: 'web_search_result_location'
  url: string
  title?: string | null
  cited_text?: string
  encrypted_index?: string
}

/** Other citation kinds (char_location, ...) are ignored. */
export type MessagesCitation = MessagesWebSearchResultLocation | { type: string; [key: string]: unknown }

export interface MessagesTextBlock {
  type: 'text'
  text: string
  citations?: MessagesCitation[] | null
}

export interface MessagesServerToolUseBlock {
  type: 'server_tool_use'
  id: string
  name: string
  input: { query?: string; [key: string]: unknown }
}

export interface MessagesWebSearchResult {
  type: 'web_search_result'
  url: string
  title?: string | null
  page_age?: string | null
  encrypted_content?: string
}

export interface MessagesWebSearchToolResultError {
  type: 'web_search_tool_result_error'
  /** too_many_requests, invalid_input, invalid_tool_input, max_uses_exceeded, query_too_long, unavailable, ...: any string. */
  error_code: string
}

export interface MessagesWebSearchToolResultBlock {
  type: 'web_search_tool_result'
  tool_use_id: string
  content: MessagesWebSearchResult[] | MessagesWebSearchToolResultError
}

export interface MessagesUnknownBlock {
  type: string
  [key: string]: unknown
}

export type MessagesContentBlock = MessagesTextBlock | MessagesServerToolUseBlock | MessagesWebSearchToolResultBlock | MessagesUnknownBlock

export interface MessagesUsage {
  input_tokens?: number
  output_tokens?: number
  server_tool_use?: { web_search_requests?: number; [key: string]: unknown } | null
  [key: string]: unknown
}

export interface MessagesResponse {
  id?: string
  type?: string
  role?: string
  model?: string
  content: MessagesContentBlock[]
  /** end_turn, max_tokens, stop_sequence, tool_use, pause_turn, refusal, model_context_window_exceeded, ... */
  stop_reason?: string | null
  usage?: MessagesUsage | null
}

/** The Anthropic envelope `{type: "error", error: {type, message}}`; an OpenAI-style one (some gateways) also carries `error.message`. */
export interface MessagesErrorBody {
  type?: 'error'
  error?: { type?: string; message?: string; code?: string | null; param?: string | null }
  request_id?: string
}

export type ParsedMessagesBody = { ok: true; response: MessagesResponse } | { ok: false; reason: string }

/** Checks the envelope only; the blocks are read by `fromMessagesResponse`. */
export function parseMessagesResponse(text: string): ParsedMessagesBody {
  const parsed = parseJsonEnvelope(text, 'content')
  if (!parsed.ok) return parsed
  return { ok: true, response: { ...parsed.value, content: parsed.items } as unknown as MessagesResponse }
}

/** Reads an error body defensively; undefined when it is not JSON. */
export function parseMessagesErrorBody(text: string): MessagesErrorBody | undefined {
  return parseJsonObject(text) as MessagesErrorBody | undefined
}

/** `{base}/v1/messages`, or `{base}/messages` when the base already ends in /v1. */
export function messagesEndpoint(baseURL: string): URL {
  return versionedEndpoint(baseURL, 'messages')
}

/** The one user message of a search turn. */
export function searchInstruction(query: string): string {
  return (
    'Search the web for the query below with the web_search tool, then answer it briefly from the results, ' +
    'citing them. Do not answer from memory.\n\n' +
    `Query: ${query}`
  )
}
