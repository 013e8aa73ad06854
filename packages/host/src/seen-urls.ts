/**
 * The URLs a session has seen, for the provenance gate of a fetch tool
 * (docs/security.md, "Exfiltration through fetched URLs"): a URL the model
 * asks for passes when it came from the session's own context (a search
 * result, a link of a fetched page, a redirect followed, a URL the user
 * gave), not when the model composed it.
 */

/** Where a seen URL came from. */
export type SeenUrlSource = 'user' | 'search' | 'link' | 'redirect' | 'fetched'

/** How many URLs a session keeps by default before it drops the oldest. */
export const SEEN_URLS_MAX = 10_000

/** The longest URL kept (the web_fetch input's own bound): a longer one is never seen, so never passes. */
export const SEEN_URL_MAX_CHARS = 8192

/** The most characters of text `declareUserUrls` scans for URLs, and the most URLs it takes from one declaration. */
export const USER_TEXT_MAX_CHARS = 1_000_000
export const USER_URLS_MAX = 1000

/**
 * The form two URLs are compared in: exact, up to what does not change
 * where the request goes or what it asks for. The WHATWG parser already
 * lower-cases the scheme and the host, drops a default port, resolves `.`
 * and `..` segments and encodes what must be encoded; here a host's
 * trailing dot goes too, and the fragment (never sent). Path, query and
 * userinfo stay as written: a URL that differs in any of them is another
 * URL. Undefined for anything but an http(s) URL of at most
 * SEEN_URL_MAX_CHARS characters.
 */
export function provenanceKey(input: string | URL): string | undefined {
  const text = String(input)
  if (text.length > SEEN_URL_MAX_CHARS) return undefined
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  const host = url.hostname.replace(/\.+$/, '')
  if (!host) return undefined
  if (host !== url.hostname) url.hostname = host
  url.hash = ''
  return url.href
}

/** The http(s) URLs written in a text (a user's message), in order, at most `max`; what ends a sentence is not part of one. */
export function urlsInText(text: string, max = USER_URLS_MAX): string[] {
  const found: string[] = []
  for (const match of text.slice(0, USER_TEXT_MAX_CHARS).matchAll(/\bhttps?:\/\/[^\s<>"'`\\]+/gi)) {
    if (found.length >= max) break
    found.push(trimProse(match[0]))
  }
  return found
}

/** A URL at the end of a sentence or inside brackets loses the punctuation around it, not its own closing bracket. */
function trimProse(url: string): string {
  let end = url.length
  while (end > 0) {
    const last = url[end - 1]
    if ('.,;:!?'.includes(last)) end--
    else if (last === ')' && count(url.slice(0, end), '(') < count(url.slice(0, end), ')')) end--
    else if (last === ']' && count(url.slice(0, end), '[') < count(url.slice(0, end), ']')) end--
    else break
  }
  return url.slice(0, end)
}

const count = (text: string, char: string) => text.split(char).length - 1

/** What a declaration of user URLs did: how many it took, what it could not read as an http(s) URL (the first 200 characters of each), and what it left past its bounds. */
export interface UserUrlsDeclared {
  added: number
  refused: string[]
  notes: string[]
}

/** Said once per set, when it first drops its oldest URLs to stay within its bound. */
export interface SeenUrlsDropped {
  max: number
  dropped: number
}

/**
 * A session's seen URLs as the contract gives them (`SessionHandle.seenUrls`):
 * the fetch tools add what they see, the host declares what the user gave.
 * `BoundedSeenUrls` is the implementation a host mounts.
 */
export interface SeenUrls {
  readonly max: number
  readonly size: number
  /** Adds URLs (anything but an http(s) URL is skipped); returns how many were taken. */
  add(urls: Iterable<string>, source: SeenUrlSource): number
  /**
   * What the host calls with what the user gave: a message's text (its
   * http(s) URLs are taken, at most USER_URLS_MAX) or a list of URLs (each
   * must be one; the others are returned in `refused`).
   */
  declareUserUrls(input: string | readonly string[]): UserUrlsDeclared
  /** Where `url` was seen: exactly (`exact`), or with `sameOrigin` on a URL of its origin (`origin`); undefined when not. */
  admits(url: string, options?: { sameOrigin?: boolean }): 'exact' | 'origin' | undefined
  /** The first time the set has dropped URLs, how many and its bound; undefined after that, and before. */
  takeDropNotice(): SeenUrlsDropped | undefined
}

/**
 * A bounded set of seen URLs in `provenanceKey` form, oldest first: past
 * `max` the oldest are dropped (a URL seen again counts as new), and
 * `takeDropNotice` says so once. The host keeps one per session.
 */
export class BoundedSeenUrls implements SeenUrls {
  private readonly keys = new Map<string, SeenUrlSource>()
  /** How many kept URLs each origin has: what `sameOrigin` asks. */
  private readonly origins = new Map<string, number>()
  private droppedTotal = 0
  private noticeGiven = false

  constructor(readonly max = SEEN_URLS_MAX) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`A seen-URL set needs a bound of at least 1, not ${max}.`)
  }

  get size(): number {
    return this.keys.size
  }

  add(urls: Iterable<string>, source: SeenUrlSource): number {
    let added = 0
    for (const url of urls) {
      const key = typeof url === 'string' ? provenanceKey(url) : undefined
      if (!key) continue
      this.remove(key)
      this.keys.set(key, source)
      this.countOrigin(key, 1)
      added++
    }
    while (this.keys.size > this.max) {
      const oldest = this.keys.keys().next().value as string
      this.remove(oldest)
      this.droppedTotal++
    }
    return added
  }

  declareUserUrls(input: string | readonly string[]): UserUrlsDeclared {
    const notes: string[] = []
    if (typeof input === 'string') {
      const urls = urlsInText(input, USER_URLS_MAX + 1)
      if (input.length > USER_TEXT_MAX_CHARS) notes.push(`Only the first ${USER_TEXT_MAX_CHARS} characters of the text were read for URLs.`)
      if (urls.length > USER_URLS_MAX) notes.push(`Only the first ${USER_URLS_MAX} URLs of the text were taken.`)
      return { added: this.add(urls.slice(0, USER_URLS_MAX), 'user'), refused: [], notes }
    }
    const refused: string[] = []
    const urls: string[] = []
    for (const url of input.slice(0, USER_URLS_MAX)) (typeof url === 'string' && provenanceKey(url) ? urls : refused).push(String(url).slice(0, 200))
    if (input.length > USER_URLS_MAX) notes.push(`Only the first ${USER_URLS_MAX} of ${input.length} URLs were taken.`)
    return { added: this.add(urls, 'user'), refused, notes }
  }

  admits(url: string, options: { sameOrigin?: boolean } = {}): 'exact' | 'origin' | undefined {
    const key = provenanceKey(url)
    if (!key) return undefined
    if (this.keys.has(key)) return 'exact'
    if (options.sameOrigin && this.origins.has(new URL(key).origin)) return 'origin'
    return undefined
  }

  takeDropNotice(): SeenUrlsDropped | undefined {
    if (this.noticeGiven || this.droppedTotal === 0) return undefined
    this.noticeGiven = true
    return { max: this.max, dropped: this.droppedTotal }
  }

  private remove(key: string): void {
    if (this.keys.delete(key)) this.countOrigin(key, -1)
  }

  private countOrigin(key: string, by: 1 | -1): void {
    const origin = new URL(key).origin
    const next = (this.origins.get(origin) ?? 0) + by
    if (next > 0) this.origins.set(origin, next)
    else this.origins.delete(origin)
  }
}

/** The origin of a URL, the only part of a refused URL an event or message names (never its path or query). */
export function originOf(url: string): string {
  try {
    const parsed = new URL(url)
    return parsed.origin === 'null' ? `${parsed.protocol}` : parsed.origin
  } catch {
    return '<unparseable url>'
  }
}
