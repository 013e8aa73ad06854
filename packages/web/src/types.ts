/**
 * Neutral types shared by every provider and tool. Wire types belong to the
 * provider packages; nothing here names a vendor. Session and artifact types
 * are the host contract's (`dsh-host`).
 */

import type { ArtifactRef, SessionHandle } from 'dsh-host'
import type { WebErrorCode } from './errors.js'

/** What every provider call carries besides its request. */
export interface ProviderCall {
  signal: AbortSignal
  session?: SessionHandle
  callId?: string
  /**
   * Epoch milliseconds by which the caller needs the answer, when it has a
   * deadline. The signal still enforces it; providers read it to avoid starting
   * a retry wait (e.g. a 429's retry-after) that would end after it.
   */
  deadline?: number
  /**
   * Called with each provider request's record once the session log holds it
   * (the provider kit's `appendRequestEvent` calls it). The seam collects them
   * so that a cached answer can name the requests behind it.
   */
  onRequestLogged?(record: RequestRecord): void
}

/** A provider request as the initiating session's log holds it: enough to find it and check it. */
export interface RequestRecord {
  /** The session whose log holds the request event. */
  session: string
  /** The event's sequence number in that log. */
  seq: number
  /** The event's type, e.g. web/deepseek-search-llm-request. */
  type: string
  /** SHA-256 (hex) of the event's data as logged (JSON): the exact, secret-free request. */
  sha256: string
}

// ---------------------------------------------------------------- search

export interface UserLocation {
  type?: 'approximate'
  city?: string
  region?: string
  /** Two-letter ISO country code. */
  country?: string
  /** IANA time zone, e.g. Europe/Berlin. */
  timezone?: string
}

/**
 * Keep to sources published (or updated) within the last day, week, month or
 * year, as the provider judges it. A provider that cannot apply it reports the
 * `recency` filter as not honoured; it is never dropped silently.
 */
export type SearchRecency = 'day' | 'week' | 'month' | 'year'

export interface SearchRequest {
  query: string
  allowedDomains?: string[]
  blockedDomains?: string[]
  userLocation?: UserLocation
  recency?: SearchRecency
}

export interface SearchSource {
  url: string
  title?: string
  /** Text the provider quoted from the page (cited spans), untrusted. */
  snippet?: string
  /** As the provider gave it (e.g. "2 days ago" or an ISO date). */
  publishedDate?: string
  /** For a metasearch provider: the names of the engines that returned this source, as the provider names them. */
  engines?: string[]
  /** More excerpts of the same page, beside `snippet`, when the provider gives them; untrusted. */
  extraSnippets?: string[]
  /** What the provider listed the source as, when it says (a web page, a news article, a forum discussion). */
  kind?: SearchSourceKind
}

export type SearchSourceKind = 'web' | 'news' | 'discussion'

export interface Citation {
  url: string
  title?: string
  citedText?: string
  /** Character range of the answer text this citation supports, when known. */
  start?: number
  end?: number
}

/**
 * An answer beside the sources, never page text: either prose written by the
 * provider's model (`modelWritten: true`), or a search engine's instant answer
 * (a calculator result, an infobox: `modelWritten: false`), which no model wrote.
 */
export interface SearchAnswer {
  text: string
  citations: Citation[]
  modelWritten: boolean
}

export type SearchFilterName = 'allowed_domains' | 'blocked_domains' | 'user_location' | 'recency'

/**
 * Whether a requested filter holds for the result. A domain filter is honoured
 * only when it reached the provider and every returned source complies; a
 * filter that cannot be checked is honoured only when the provider documents
 * applying it. `note` says what was sent and what was found.
 */
export interface SearchFilterReport {
  filter: SearchFilterName
  honoured: boolean
  note?: string
}

export interface SearchUsage {
  searchRequests?: number
  inputTokens?: number
  outputTokens?: number
}

export interface SearchResult {
  providerId: string
  /** The query as the caller asked it. */
  query: string
  /** The queries the provider's search tool actually ran. */
  queries: string[]
  /** Every source the provider returned, in its order, unique by URL. */
  sources: SearchSource[]
  answer?: SearchAnswer
  filters: SearchFilterReport[]
  usage?: SearchUsage
  /** Partial results, ignored filters and other things the caller must know. */
  warnings: string[]
  /** Set when the seam answered from its search cache (the web row's searchCacheTtlMs, off by default) instead of asking the provider. */
  fromCache?: SearchCacheHit
}

/** What a cached search answer says of itself: when, by whom, and the requests behind it. */
export interface SearchCacheHit {
  /** When the provider answered the original search (ISO 8601). */
  searchedAt: string
  /** The provider that answered it. */
  providerId: string
  /** The provider requests of the original search, as the initiating session's log holds them (none when it had no session). */
  requests: RequestRecord[]
}

export interface SearchProvider {
  readonly id: string
  /** A cheap local check; never touches the network. */
  available(): boolean
  /**
   * Why `available()` is false, for the person fixing the config row (e.g.
   * `baseURL "x" is not a valid URL; set baseURL or ...`); undefined when it is
   * available. Local and cheap like `available()`; never names a key.
   */
  unavailableReason?(): string | undefined
  search(request: SearchRequest, call: ProviderCall): Promise<SearchResult>
  /**
   * The smallest request that proves a search would work, for `dsh doctor`
   * (SearXNG: one JSON search, which an instance with JSON turned off
   * refuses). Resolves to what it proved; rejects with the WebError a search
   * would end with. Left out where the API has no request that costs nothing:
   * a check never makes a paid search.
   */
  check?(call: ProviderCall): Promise<string>
}

// ---------------------------------------------------------------- fetch

export type FetchFormat = 'markdown' | 'text' | 'html'
export type FetchExtract = 'main' | 'full'

export interface FetchRequest {
  url: string
  format?: FetchFormat
  /** Characters of converted text per page. */
  maxChars?: number
  /** Character offset into the converted text. */
  offset?: number
  extract?: FetchExtract
  /**
   * Imposed by policy (never by the model): when present, every hop, the first
   * included, must be on an entry of this domain list (dsh-host's
   * `DomainList`: docs/security.md, "Domain lists"); empty admits nothing.
   */
  allowedDomains?: string[]
  /**
   * When the body is larger than the provider's byte cap, return the part that
   * fits (marked truncated, with the reason) instead of failing.
   */
  allowPartial?: boolean
  /**
   * A literal phrase to look for in the converted text, case- and
   * whitespace-insensitive, accents kept (1 to FIND_MAX_CHARS characters):
   * the result's `find` lists where it occurs from `offset` on, instead of a
   * part of the text. Not with `query`.
   */
  find?: string
  /**
   * A few words (1 to QUERY_MAX_CHARS characters): the result's `query`
   * holds the passages of the page that share the most words with them
   * (BM25 over its blocks), within `maxChars`, and the page's outline,
   * instead of a part of the text. Not with `find`, nor with an `offset`.
   */
  query?: string
  /**
   * Which pages of a paged document (a PDF) to read: `"5"` or `"3-5"`,
   * counted from 1 (PAGES_PATTERN). The part, `find` and `query` then stay
   * within those pages; offsets stay those of the whole document, so a
   * later call with only `offset` lands on the same characters. A document
   * that has no pages is read whole, and the result says so.
   */
  pages?: string
}

/**
 * Which pages of a paged document a result holds (`first` to `last` of
 * `pageCount`, the pages the shown characters touch), and with the
 * request's `pages` which were asked for and where they lie in the text.
 */
export interface PagesShown {
  pageCount: number
  /** The first and last page the part's characters, or the matches and passages, lie on. */
  first: number
  last: number
  /** With the request's `pages`: the pages read (`last` within the document) and their characters, `start` to `end`. */
  requested?: { first: number; last: number; start: number; end: number }
}

/**
 * How one hop went out: `direct` (every answer of the name checked, the
 * connection pinned to a vetted address) or `proxy` (through an HTTP proxy,
 * which resolves the name itself: the host was vetted before anything was
 * sent). `checks` names the checks that held for the hop (docs/security.md,
 * "Through a proxy").
 */
export type HopRoute = 'direct' | 'proxy'

export interface RedirectHop {
  url: string
  status: number
  location?: string
  /** The route this hop took (providers that know it). */
  route?: HopRoute
  /** With `route: 'proxy'`: the proxy's origin, never its credentials. */
  proxy?: string
  /** The checks that held for this hop, e.g. `pinned`, `name-not-local`, `resolved-locally`. */
  checks?: string[]
}

export interface FetchProvenance {
  requestedUrl: string
  finalUrl: string
  redirects: RedirectHop[]
  /** The address the connection was made to (direct route only: through a proxy, the proxy picks it). */
  address?: string
  /** The last hop's route, proxy and checks, as in `RedirectHop`. */
  route?: HopRoute
  proxy?: string
  checks?: string[]
  status: number
  contentType?: string
  charset?: string
  bytesRead: number
  durationMs: number
  extractor: string
  /** True when the document came from the cache (this process's, or the state store every process shares) instead of the site. */
  cacheHit: boolean
  /** SHA-256 of the body bytes the text was made from. */
  sourceSha256?: string
  /** When the site was fetched (for a cache hit, by the call that filled the cache). */
  fetchedAt: string
  /**
   * Requests the page itself made (a rendering provider: subresources,
   * scripts' fetches, sockets, redirect hops) that the address policy or a
   * bound refused, before anything was sent: how many, and the first few.
   */
  refused?: FetchRefusal
}

export interface FetchRefusal {
  count: number
  /** The first refusals in the order they happened: the URL (no query string) or the tunnel's host:port, the code and why. */
  first: { url: string; code: WebErrorCode; reason: string }[]
}

export interface DocumentMetadata {
  title?: string
  byline?: string
  siteName?: string
  lang?: string
  publishedTime?: string
  canonicalUrl?: string
  excerpt?: string
  /** What the response was read as, when it was not an HTML page (the tool's header says it). */
  sourceFormat?: SourceFormat
  /** Pages of a PDF. */
  pageCount?: number
  /** Items (entries) of an RSS or Atom feed. */
  itemCount?: number
  /** What kind of page an HTML page is: judged from the types it declares (structured), else from its address or its structure (`pageTypeFrom`); undefined when nothing tells. */
  pageType?: PageType
  /** What `pageType` was judged from. */
  pageTypeFrom?: PageTypeBasis
  /** What the page states about itself in JSON-LD, microdata or Open Graph: read, bounded, never invented. */
  structured?: StructuredData
}

/** The kinds of HTML page extraction tells apart (WCXB's seven). */
export type PageType = 'article' | 'forum' | 'product' | 'listing' | 'collection' | 'documentation' | 'service'

/** What a page type was judged from: the types the page declares, its address (a forum's host, a product's path), or its structure (code blocks, a control that adds to a cart beside a price, a grid of prices). */
export type PageTypeBasis = 'declared' | 'address' | 'structure'

/**
 * A page's own statements about itself, from JSON-LD, microdata or Open
 * Graph. Every field is copied from the page (whitespace collapsed, each
 * string at most 200 characters), never inferred; untrusted like the text.
 */
export interface StructuredData {
  /** Where the fields were read, in the order they were tried. */
  sources: StructuredSource[]
  /** schema.org types the page declares (`Product`, `NewsArticle`, `QAPage`, …), at most 8, or og:type. */
  types: string[]
  /** The declared name or headline. */
  name?: string
  author?: string
  datePublished?: string
  dateModified?: string
  /** A product's offer, when the page declares one. */
  product?: StructuredProduct
  /** The page's breadcrumb trail, outermost first, at most 10 names. */
  breadcrumbs?: string[]
}

export type StructuredSource = 'json-ld' | 'microdata' | 'opengraph'

export interface StructuredProduct {
  name?: string
  brand?: string
  sku?: string
  /** As the page writes it (`19.99`), with its currency apart. */
  price?: string
  currency?: string
  /** schema.org availability without its URL prefix (`InStock`). */
  availability?: string
}

/** The kinds of document a fetch provider reads besides HTML. */
export type SourceFormat = 'pdf' | 'rss' | 'atom' | 'json' | 'xml' | 'text'

export interface DocumentLink {
  url: string
  text?: string
}

export interface FetchedDocument {
  providerId: string
  /** The final URL after redirects. */
  url: string
  status: number
  contentType?: string
  format: FetchFormat
  /** The requested page of the converted text. */
  text: string
  offset: number
  /** Where the next page starts; absent at the end. */
  nextOffset?: number
  totalChars: number
  truncated: boolean
  truncatedReason?: string
  metadata: DocumentMetadata
  links: DocumentLink[]
  artifact?: ArtifactRef
  provenance: FetchProvenance
  /** Set for a non-2xx status; the text is still the page's. */
  error?: { code: 'WEB_HTTP_STATUS'; message: string }
  /**
   * What the page turned out to be, judged from the document read (static or
   * rendered). Absent means the provider does not judge pages (treat as `ok`).
   * `challenge`, `login_wall`, `needs_js` and `empty` are not the page's
   * content: tools say so instead of presenting the text as the page (and
   * never show a wall's text at all); `paywall` and `partial` hold part of
   * it, and tools say which part.
   */
  outcome?: PageOutcome
  /** With the request's `find`: where the phrase occurs (then `text` is empty). */
  find?: FindResult
  /** With the request's `query`: the best passages and the outline (then `text` is empty). */
  query?: QueryResult
  /** Of a paged document (a PDF): which pages this result holds. */
  pages?: PagesShown
  warnings: string[]
}

/** A heading of the converted text: its level (1 to 6), its words (page text, untrusted) and where its line starts. */
export interface PageHeading {
  level: number
  title: string
  offset: number
}

/** One place where the phrase occurs. Everything but the figures is page text, untrusted. */
export interface FindMatch {
  /** Where the match starts in the converted text: a fetch with this `offset` starts on it. */
  offset: number
  /** Its length there (whitespace runs in the page may make it longer than the phrase). */
  length: number
  /** The match as the page has it. */
  text: string
  /** A few words before and after it, whitespace runs shown as one space. */
  before: string
  after: string
  /** The headings it sits under, outermost first. */
  headings: string[]
}

export interface FindResult {
  /** The phrase as it was searched: trimmed, whitespace runs as one space. */
  phrase: string
  /** The offset the search started from. */
  from: number
  /** Every match from `from` on; `matches` holds the first of them. */
  total: number
  matches: FindMatch[]
  /** With more matches than shown: the offset of the first one not shown, to search on from. */
  nextOffset?: number
}

/** A passage of the page, exactly as the converted text has it from `offset`; page text, untrusted. */
export interface RankedPassage {
  offset: number
  text: string
  /** The headings it sits under, outermost first. */
  headings: string[]
  /** Its BM25 score against the query (higher shares more, and rarer, words). */
  score: number
  /** Set when the passage was longer than maxChars: `text` is its start, and it goes on at `offset + text.length`. */
  cut?: true
}

export interface QueryResult {
  /** The query as asked. */
  query: string
  /** Its words as they were matched (lowercase, accents and plural s dropped). */
  terms: string[]
  /** How the passages were chosen: by word overlap, not by understanding. */
  method: string
  /** Blocks of the page that were ranked, and how many share at least one word with the query. */
  blocks: number
  matchingBlocks: number
  /** The best passages in rank order, within maxChars. */
  passages: RankedPassage[]
  /** The page's headings in order (at most OUTLINE_MAX of them; `outlineTotal` says how many it has). */
  outline: PageHeading[]
  outlineTotal: number
}

/**
 * - `ok`: the page's content was read.
 * - `needs_js`: a shell whose content its scripts would write (little visible
 *   text, an empty app root, script bundles, a `<noscript>` asking for JavaScript).
 * - `challenge`: a bot wall or captcha interstitial (`vendor` when its markup or headers name one).
 * - `login_wall`: the page asks to sign in before it shows its content.
 * - `paywall`: a teaser, the rest behind a subscription.
 * - `empty`: no text found.
 * - `partial`: the page did not finish within the deadline, or lazy content was not loaded; for a
 *   static read, a body cut at the byte limit (allowPartial) whose part read has no text or only a
 *   shell (the text may be in the rest). A cut body whose part read has its text stays `ok`:
 *   `truncated` and `truncatedReason` say the cut.
 */
export type PageOutcomeKind = 'ok' | 'needs_js' | 'challenge' | 'login_wall' | 'paywall' | 'empty' | 'partial'

export interface PageOutcome {
  kind: PageOutcomeKind
  /**
   * What in the page decided it, for a person and the model (e.g. "app root #root empty, 3 script
   * bundles, 14 words of visible text"): the provider's own words and figures, never the page's
   * text, since tools show it outside the untrusted fence (they clean it all the same).
   */
  evidence?: string
  /** With `challenge`: the vendor its markup or headers name (e.g. `cloudflare`). */
  vendor?: string
  /** How the page was read: `static` (its HTML as served) or `rendered` (by a browser, the fetch provider named in `renderedBy`). */
  readAs: 'static' | 'rendered'
  renderedBy?: string
  /** Why it was or was not rendered (e.g. "rendering is off: the web row's render is never"). */
  renderNote?: string
}

export interface FetchProvider {
  readonly id: string
  /** A cheap local check; never touches the network. */
  available(): boolean
  /** Why `available()` is false; undefined when it is available. Local and cheap like `available()`. */
  unavailableReason?(): string | undefined
  fetch(request: FetchRequest, call: ProviderCall): Promise<FetchedDocument>
  /**
   * What `dsh doctor` asks of a fetch provider beyond `available()`: facts
   * of its installation and a self-test on loopback only (a renderer: its
   * browser found, its version, its sandbox, and that a page's egress is
   * contained). Resolves to what it proved; rejects with a WebError saying
   * what is wrong. Never reaches past loopback.
   */
  check?(call: ProviderCall): Promise<string>
}
