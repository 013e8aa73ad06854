import { WebError } from 'dsh-web'
import type { Citation, SearchAnswer, SearchSource, SearchUsage } from 'dsh-web'
import { isObject } from 'dsh-provider-kit'
import type { GeminiCandidate, GeminiGenerateContentResponse, GeminiGroundingMetadata, GeminiPart } from './gemini-generate-content-api.js'

export interface GeminiMappedResult {
  queries: string[]
  sources: SearchSource[]
  answer?: SearchAnswer
  usage?: SearchUsage
  warnings: string[]
}

/** Where Google's grounding redirects live: the link reaches the page only through Google. */
const GROUNDING_REDIRECT = /^https:\/\/vertexaisearch\.cloud\.google\.com\/grounding-api-redirect\//

/** finishReason values that end a candidate early. */
const CUT_SHORT: Record<string, string> = {
  MAX_TOKENS: 'The answer was cut off at maxOutputTokens (finishReason MAX_TOKENS); the results may be partial.',
  SAFETY: 'Gemini stopped the answer for safety (finishReason SAFETY); only what came before is returned.',
  RECITATION: 'Gemini stopped the answer for recitation (finishReason RECITATION); only what came before is returned.',
}

/**
 * Wire to neutral, from the first candidate. Sources are the web grounding
 * chunks in Gemini's order, unique by URI, all of them; their URIs are kept as
 * Gemini gives them (often grounding redirects, which only a request to Google
 * would resolve; a warning counts them). The answer is the text parts joined,
 * thought parts left out, marked model-written; each grounding support becomes
 * citations of its chunks over the answer's character range.
 */
export function fromGeminiResponse(response: GeminiGenerateContentResponse, providerId: string): GeminiMappedResult {
  const candidate = response.candidates[0]
  if (!candidate) {
    const blocked = isObject(response.promptFeedback) && typeof response.promptFeedback.blockReason === 'string' ? response.promptFeedback.blockReason : undefined
    throw new WebError('WEB_SEARCH_FAILED', blocked ? `Gemini blocked the prompt (promptFeedback.blockReason ${blocked}); nothing was searched.` : 'Gemini answered without any candidate; nothing was searched.', {
      details: { providerId, providerCode: blocked ?? 'no_candidate' },
    })
  }
  const metadata: GeminiGroundingMetadata = isObject(candidate.groundingMetadata) ? candidate.groundingMetadata : {}
  const queries = Array.isArray(metadata.webSearchQueries) ? metadata.webSearchQueries.filter((query): query is string => typeof query === 'string' && query !== '') : []
  const chunks = Array.isArray(metadata.groundingChunks) ? metadata.groundingChunks : []
  const finishReason = typeof candidate.finishReason === 'string' ? candidate.finishReason : undefined
  if (!queries.length && !chunks.length) {
    throw new WebError(
      'WEB_SEARCH_FAILED',
      `Gemini answered without grounding: the model did not search${finishReason ? ` (finishReason ${finishReason})` : ''}. No sources are taken from the model's prose.`,
      { details: { providerId, providerCode: 'no_search_performed' } },
    )
  }

  const sources: SearchSource[] = []
  /** Chunk index -> its source (first occurrence of its URI). */
  const sourceOf = new Map<number, SearchSource>()
  const byUrl = new Map<string, SearchSource>()
  chunks.forEach((chunk, index) => {
    const web = isObject(chunk) && isObject(chunk.web) ? chunk.web : undefined
    if (!web || typeof web.uri !== 'string' || !web.uri) return
    let source = byUrl.get(web.uri)
    if (!source) {
      source = { url: web.uri }
      if (typeof web.title === 'string' && web.title) source.title = web.title
      byUrl.set(web.uri, source)
      sources.push(source)
    }
    sourceOf.set(index, source)
  })

  const warnings: string[] = []
  if (!sources.length) warnings.push('The web search returned no results.')
  const redirects = sources.filter((source) => GROUNDING_REDIRECT.test(source.url)).length
  if (redirects) {
    warnings.push(
      `${redirects === sources.length ? `All ${redirects}` : `${redirects} of ${sources.length}`} source URLs are Google grounding redirects ` +
        '(vertexaisearch.cloud.google.com/grounding-api-redirect/…), kept as Gemini gave them: each title names the site, and fetching the URL follows the redirect to the page.',
    )
  }
  if (finishReason && CUT_SHORT[finishReason]) warnings.push(CUT_SHORT[finishReason]!)

  const mapped: GeminiMappedResult = { queries, sources, warnings }
  const answer = toAnswer(candidate, metadata, sourceOf)
  if (answer) mapped.answer = answer
  const usage = toUsage(response, queries.length)
  if (usage) mapped.usage = usage
  return mapped
}

function toAnswer(candidate: GeminiCandidate, metadata: GeminiGroundingMetadata, sourceOf: Map<number, SearchSource>): SearchAnswer | undefined {
  const parts = isObject(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : []
  let text = ''
  /** Part index -> its text and where it starts in the answer. */
  const placed = new Map<number, { text: string; start: number }>()
  parts.forEach((part: GeminiPart, index) => {
    if (!isObject(part) || typeof part.text !== 'string' || part.thought === true) return
    placed.set(index, { text: part.text, start: text.length })
    text += part.text
  })
  if (!text.trim()) return undefined

  const citations: Citation[] = []
  for (const support of Array.isArray(metadata.groundingSupports) ? metadata.groundingSupports : []) {
    if (!isObject(support) || !isObject(support.segment) || !Array.isArray(support.groundingChunkIndices)) continue
    const segment = support.segment
    const part = placed.get(typeof segment.partIndex === 'number' ? segment.partIndex : 0)
    const range = part ? charRange(part.text, segment.startIndex ?? 0, segment.endIndex) : undefined
    // Two chunks of one support can be the same page: one citation per source and range.
    const cited = new Set<SearchSource>()
    for (const index of support.groundingChunkIndices) {
      const source = typeof index === 'number' ? sourceOf.get(index) : undefined
      if (!source || cited.has(source)) continue
      cited.add(source)
      const citation: Citation = { url: source.url }
      if (source.title) citation.title = source.title
      if (part && range) {
        citation.start = part.start + range[0]
        citation.end = part.start + range[1]
      }
      citations.push(citation)
    }
  }
  return { text, citations, modelWritten: true }
}

/**
 * A segment's UTF-8 byte offsets as character offsets into `text`; undefined
 * when they do not fall inside it on character boundaries (then the citation
 * is kept without a range rather than placed wrongly).
 */
function charRange(text: string, startByte: unknown, endByte: unknown): [number, number] | undefined {
  const bytes = Buffer.from(text, 'utf8')
  if (typeof startByte !== 'number' || typeof endByte !== 'number' || !Number.isInteger(startByte) || !Number.isInteger(endByte)) return undefined
  if (startByte < 0 || endByte < startByte || endByte > bytes.length) return undefined
  // A UTF-8 continuation byte (10xxxxxx) at an offset means it cuts a character.
  const inside = (offset: number) => offset < bytes.length && (bytes[offset]! & 0xc0) === 0x80
  if (inside(startByte) || inside(endByte)) return undefined
  return [bytes.subarray(0, startByte).toString('utf8').length, bytes.subarray(0, endByte).toString('utf8').length]
}

function toUsage(response: GeminiGenerateContentResponse, queries: number): SearchUsage | undefined {
  const usage = response.usageMetadata
  const result: SearchUsage = {}
  if (queries) result.searchRequests = queries
  if (isObject(usage)) {
    if (typeof usage.promptTokenCount === 'number') result.inputTokens = usage.promptTokenCount
    if (typeof usage.candidatesTokenCount === 'number') result.outputTokens = usage.candidatesTokenCount
  }
  return Object.keys(result).length ? result : undefined
}
