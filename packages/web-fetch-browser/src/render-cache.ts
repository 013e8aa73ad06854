import type { DocumentLink, DocumentMetadata, FetchProvenance, PageOutcome } from 'dsh-web'

/** A rendered page once converted: what paging, artifacts and the result are made from. */
export interface RenderedDocument {
  text: string
  metadata: DocumentMetadata
  links: DocumentLink[]
  warnings: string[]
  outcome: PageOutcome
  /** Why the rendered HTML was cut at maxBytes (allowPartial). */
  bodyTruncatedReason?: string
  /** The provenance of the render, `durationMs` and `cacheHit` set per call. */
  provenance: Omit<FetchProvenance, 'durationMs' | 'cacheHit'>
}

/** Documents kept at most, and the longest text kept. */
export const RENDER_CACHE_ENTRIES = 32
export const RENDER_CACHE_MAX_CHARS = 2_000_000

/**
 * The rendered documents of this process, for `ttlMs`: a later call for
 * the next part of a page (offset) pages the same snapshot instead of
 * rendering again, which could show other text. Bounded by entries and by
 * the length of each text; the oldest goes first. In this process only: a
 * render is not shared through the state store.
 */
export class RenderCache {
  private readonly entries = new Map<string, { document: RenderedDocument; expires: number }>()

  constructor(private readonly ttlMs: number) {}

  get(key: string): RenderedDocument | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.expires <= Date.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry.document
  }

  set(keys: string[], document: RenderedDocument) {
    if (this.ttlMs <= 0 || document.text.length > RENDER_CACHE_MAX_CHARS) return
    for (const key of keys) {
      this.entries.delete(key)
      this.entries.set(key, { document, expires: Date.now() + this.ttlMs })
    }
    while (this.entries.size > RENDER_CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
  }

  clear() {
    this.entries.clear()
  }
}
