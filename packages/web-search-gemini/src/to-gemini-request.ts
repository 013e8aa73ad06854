import type { SearchFilterReport, SearchRecency, SearchRequest } from 'dsh-web'
import { cleanDomains, requestRecency, apiBase } from 'dsh-provider-kit'
import type { GeminiGenerateContentRequest, GeminiGoogleSearchTool, GeminiInterval } from './gemini-generate-content-api.js'

export interface GeminiRequestSettings {
  model: string
  maxOutputTokens: number
}

export interface GeminiWireRequest {
  body: GeminiGenerateContentRequest
  /**
   * One report per requested filter, in request order. The domain lists and
   * user_location are never sent (the tool has no such fields on the Gemini
   * API); recency is sent as `timeRangeFilter`, documented by the API
   * reference, and the sources carry no dates that could show otherwise.
   */
  filters: SearchFilterReport[]
}

/** A model id as it may stand in the path: letters, digits, dot, dash, underscore (an optional `models/` prefix is dropped). */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/** How far back each recency reaches. */
const RECENCY_MS: Record<SearchRecency, number> = {
  day: 24 * 3600_000,
  week: 7 * 24 * 3600_000,
  month: 30 * 24 * 3600_000,
  year: 365 * 24 * 3600_000,
}

const NO_DOMAIN_LIST = "not sent: Gemini's google_search tool takes no domain list on the Gemini API (its excludeDomains is Vertex AI's only), so sources are not kept to it"
const NO_LOCATION =
  "not sent: the Gemini API takes a location only as latitude and longitude (toolConfig.retrievalConfig.latLng), which a city, region, country or timezone does not give"

/**
 * `{base}/v1beta/models/{model}:generateContent`, or `{base}/models/...` when
 * the base already ends in /v1beta or /v1. Query and fragment are dropped; a
 * base that is not http(s), or a model that is not an id, throws.
 */
export function geminiGenerateContentEndpoint(baseURL: string, model: string): URL {
  const { url, path } = apiBase(baseURL)
  const id = model.replace(/^models\//, '')
  if (!MODEL_ID.test(id)) throw new TypeError(`the model ${JSON.stringify(model.slice(0, 80))} is not a Gemini model id (letters, digits, ".", "-", "_")`)
  url.pathname = `${/\/v1(beta)?$/.test(path) ? path : `${path}/v1beta`}/models/${id}:generateContent`
  return url
}

export function searchInstruction(query: string): string {
  return (
    'Search the web with Google Search for the query below, then answer it briefly from the results. ' +
    'Do not answer from memory.\n\n' +
    `Query: ${query}`
  )
}

/** Neutral request to the generateContent body with the Google Search grounding tool. `now` dates a recency window. */
export function toGeminiRequest(request: SearchRequest, settings: GeminiRequestSettings, now: Date): GeminiWireRequest {
  const tool: GeminiGoogleSearchTool = { google_search: {} }
  const filters: SearchFilterReport[] = []
  if (cleanDomains(request.allowedDomains, 'allowedDomains').length) filters.push({ filter: 'allowed_domains', honoured: false, note: NO_DOMAIN_LIST })
  if (cleanDomains(request.blockedDomains, 'blockedDomains').length) filters.push({ filter: 'blocked_domains', honoured: false, note: NO_DOMAIN_LIST })
  const location = request.userLocation
  if (location && (location.city || location.region || location.country || location.timezone)) filters.push({ filter: 'user_location', honoured: false, note: NO_LOCATION })
  const recency = requestRecency(request)
  if (recency) {
    const range: GeminiInterval = { startTime: new Date(now.getTime() - RECENCY_MS[recency]).toISOString(), endTime: now.toISOString() }
    tool.google_search.timeRangeFilter = range
    filters.push({
      filter: 'recency',
      honoured: true,
      note: `sent to Gemini as google_search.timeRangeFilter from ${range.startTime} to ${range.endTime} (the last ${recency}), which its API reference documents as filtering the search results; the sources carry no dates to check it against`,
    })
  }
  return {
    body: {
      contents: [{ role: 'user', parts: [{ text: searchInstruction(request.query) }] }],
      tools: [tool],
      generationConfig: { maxOutputTokens: settings.maxOutputTokens },
    },
    filters,
  }
}
