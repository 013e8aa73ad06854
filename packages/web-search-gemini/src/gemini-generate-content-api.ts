/**
 * Wire types of Gemini's `generateContent` (Gemini API, v1beta) as far as a
 * grounded search needs them, and a tolerant parser: unknown fields, parts and
 * chunk kinds pass through untouched, only the envelope is checked.
 */

import { isObject, parseJsonBody, parseJsonObject } from 'dsh-provider-kit'

/** google.type.Interval, RFC 3339 timestamps. */
export interface GeminiInterval {
  startTime: string
  endTime: string
}

/** The Google Search grounding tool; the Gemini API documents only `timeRangeFilter` on it (excludeDomains is Vertex AI's). */
export interface GeminiGoogleSearchTool {
  google_search: { timeRangeFilter?: GeminiInterval }
}

export interface GeminiGenerateContentRequest {
  contents: Array<{ role: 'user'; parts: Array<{ text: string }> }>
  tools: GeminiGoogleSearchTool[]
  generationConfig: { maxOutputTokens: number }
}

export interface GeminiPart {
  text?: string
  /** A thought summary, not answer text. */
  thought?: boolean
  [key: string]: unknown
}

export interface GeminiGroundingChunk {
  /** A web source; `uri` is often a grounding redirect (vertexaisearch.cloud.google.com/grounding-api-redirect/...), `title` the site. */
  web?: { uri?: string; title?: string; domain?: string }
  /** retrievedContext, maps, ...: not web sources. */
  [key: string]: unknown
}

export interface GeminiGroundingSupport {
  /** Offsets are UTF-8 byte offsets into the part `partIndex` (0 when absent). */
  segment?: { partIndex?: number; startIndex?: number; endIndex?: number; text?: string }
  groundingChunkIndices?: number[]
  confidenceScores?: number[]
}

export interface GeminiGroundingMetadata {
  webSearchQueries?: string[]
  groundingChunks?: GeminiGroundingChunk[]
  groundingSupports?: GeminiGroundingSupport[]
  /** Google's rendered search suggestions (HTML); not read. */
  searchEntryPoint?: unknown
  [key: string]: unknown
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] }
  /** STOP, MAX_TOKENS, SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, MALFORMED_FUNCTION_CALL, OTHER, ... */
  finishReason?: string
  groundingMetadata?: GeminiGroundingMetadata
  [key: string]: unknown
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number
  candidatesTokenCount?: number
  totalTokenCount?: number
  [key: string]: unknown
}

export interface GeminiGenerateContentResponse {
  candidates: GeminiCandidate[]
  promptFeedback?: { blockReason?: string; [key: string]: unknown }
  usageMetadata?: GeminiUsageMetadata
  modelVersion?: string
  [key: string]: unknown
}

/** google.rpc.Status as the REST API sends it. */
export interface GeminiErrorBody {
  error?: {
    code?: number
    message?: string
    /** RESOURCE_EXHAUSTED, INVALID_ARGUMENT, PERMISSION_DENIED, UNAUTHENTICATED, UNAVAILABLE, ... */
    status?: string
    /** google.rpc detail messages, each with an "@type": ErrorInfo, RetryInfo, QuotaFailure, Help, ... */
    details?: Array<{ '@type'?: string; [key: string]: unknown }>
  }
}

export type ParsedGenerateContentBody = { ok: true; response: GeminiGenerateContentResponse } | { ok: false; reason: string }

/**
 * Checks the envelope only: a JSON object whose `candidates` is an array, or
 * absent when the prompt was blocked (`promptFeedback.blockReason`); the rest
 * is read by `fromGeminiResponse`.
 */
export function parseGeminiResponse(text: string): ParsedGenerateContentBody {
  const parsed = parseJsonBody(text)
  if (!parsed.ok) return parsed
  const { value } = parsed
  if (!isObject(value)) return { ok: false, reason: 'the body is not a JSON object' }
  const candidates = value.candidates
  if (candidates === undefined && isObject(value.promptFeedback)) return { ok: true, response: { ...value, candidates: [] } as GeminiGenerateContentResponse }
  if (!Array.isArray(candidates)) return { ok: false, reason: 'the body has no `candidates` array' }
  return { ok: true, response: { ...value, candidates: candidates.filter(isObject) } as GeminiGenerateContentResponse }
}

/** Reads an error body defensively; undefined when it is not JSON. */
export function parseGeminiErrorBody(text: string): GeminiErrorBody | undefined {
  return parseJsonObject(text) as GeminiErrorBody | undefined
}
