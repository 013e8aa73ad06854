import type { ProvenanceSettings } from './provenance-gate.js'

/** The `tool-web` row's config, after the schema has filled in defaults. */
export interface ToolWebConfig extends ProvenanceSettings {
  /** Register `web_search`. */
  search: boolean
  /** Register `web_fetch`. */
  fetch: boolean
  /** One deadline for all queries of a `web_search` call. */
  searchTimeoutMs: number
  /** Most queries one `web_search` call may carry. */
  searchMaxQueries: number
  /** Deadline of one `web_fetch` call. */
  fetchTimeoutMs: number
  /** Default and largest page of text one `web_fetch` call returns. */
  fetchMaxChars: number
  /** Model-facing characters above which the whole output goes to an artifact file. */
  outputThreshold: number
}

export const FETCH_MAX_CHARS_LIMIT = 100_000
