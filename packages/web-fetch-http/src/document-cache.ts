import { createHash } from 'node:crypto'
import { type FetchExtract, type FetchFormat, type FetchedDocument, type DocumentLink, type DocumentMetadata, type PageOutcome, type SharedState, stateKey } from 'dsh-web'

/**
 * A converted document as the cache keeps it, for paging and for every
 * process on the state store: what the fetch returned to the model (text,
 * metadata, links, notes) and its provenance. Never a header, a key or a
 * credential; the proxy only as its origin.
 */
export interface CachedDocument {
  text: string
  metadata: DocumentMetadata
  links: DocumentLink[]
  warnings: string[]
  extractor: string
  /** The URL whose fetch made this snapshot; `redirects` are the hops from it to `finalUrl`. */
  requestedUrl: string
  finalUrl: string
  redirects: FetchedDocument['provenance']['redirects']
  address?: string
  route: FetchedDocument['provenance']['route']
  proxy?: string
  checks: string[]
  status: number
  contentType?: string
  charset?: string
  bytesRead: number
  sourceSha256: string
  bodyTruncatedReason?: string
  /** When the site was fetched (ISO 8601). */
  fetchedAt: string
  /** What the page was (page-outcome.ts), judged once when it was fetched: a hit says the same as the fetch that made it. */
  outcome: PageOutcome
  /** Of a paged document (a PDF): where each page's marker starts in `text`, for `pages`. */
  pageStarts?: number[]
}

/** Bumped when `CachedDocument` changes, so that processes of two versions never read each other's snapshots. */
const DOCUMENT_CACHE_FORMAT = 3

/** What, besides the URL, makes two fetches the same document. */
export interface DocumentVariant {
  format: FetchFormat
  extract: FetchExtract
  allowPartial: boolean
  /** The call's policy allowlist: a snapshot fetched under another one may have passed hops this one refuses. */
  allowedDomains?: string[]
}

/**
 * The snapshots paging reads, kept in the seam's state store (this
 * process's memory by default; with a shared store, every process's), keyed
 * by URL (requested and final), format, extraction mode, the call's
 * allowlist and the fetcher's policy (`policy`: a fetcher that trusts a
 * private host never hands what it read there to one that does not, and one
 * whose route goes through a proxy never to one whose route does not, nor
 * through another proxy).
 */
export class DocumentCache {
  constructor(
    private readonly state: () => SharedState,
    private readonly ttlMs: number,
    private readonly policy: string,
  ) {}

  key(href: string, variant: DocumentVariant): string {
    return stateKey(`fetch:v${DOCUMENT_CACHE_FORMAT}`, [this.policy, variant.format, variant.extract, variant.allowPartial, variant.allowedDomains ?? null, href])
  }

  async get(href: string, variant: DocumentVariant, notes: string[]): Promise<CachedDocument | undefined> {
    if (this.ttlMs <= 0) return undefined
    const stored = await this.state().read(this.key(href, variant), notes)
    if (stored === undefined) return undefined
    try {
      const document = JSON.parse(stored) as CachedDocument
      return typeof document?.text === 'string' && typeof document.finalUrl === 'string' && typeof document.outcome?.kind === 'string' ? document : undefined
    } catch {
      return undefined
    }
  }

  /** Stores one snapshot under each URL (a redirected document under its requested and its final URL). */
  async set(hrefs: string[], variant: DocumentVariant, document: CachedDocument, notes: string[]): Promise<void> {
    if (this.ttlMs <= 0) return
    const keys = [...new Set(hrefs)].map((href) => this.key(href, variant))
    await this.state().write(keys, JSON.stringify(document), this.ttlMs, notes)
  }
}

/**
 * What decides which pages a fetcher may read and how it reads them
 * (trusted hosts, fixed answers, domain lists, caps, user agent, extra CAs,
 * and the route of every hop: the proxy origins and NO_PROXY that choose it,
 * the proxy credential's name, tunnelling), as a hash: part of every cache
 * key, so that fetchers with other trust or another route never share
 * snapshots (a process without a proxy is never served a page only its
 * proxied peer could reach).
 */
export function trustFingerprint(settings: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('base64url')
}
