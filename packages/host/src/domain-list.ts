import { CodedError } from './errors.js'
import { HostNameError, canonicalHost } from './host-name.js'
import { formatIpAddress as formatIp, ipInRange, parseIpAddress, parseIpRange, type IpAddress } from './ip-cidr.js'

/**
 * The one domain matcher: every place that compares a URL's host with a list
 * (the fetch provider's allowed and blocked lists and a request's allowed list,
 * the network policy's allowlist, the search filter report) builds a
 * `DomainList` and asks it. The meaning of each entry form is written in
 * docs/security.md, "Domain lists"; keep the two in step.
 *
 * Normalisation is `canonicalHost` (host-name.ts), on entries and URLs
 * alike: the WHATWG URL parser's (case, internationalised names: Unicode and
 * punycode are the same host, IPv4 in any form the parser takes: `2130706433`
 * is 127.0.0.1, IPv6 compression), one trailing dot dropped, and names a
 * proxy could read otherwise refused.
 */

/** Where the meaning of every form is documented, for error messages. */
const DOMAIN_LIST_DOCS = 'docs/security.md, "Domain lists"'

/** The accepted forms in one sentence, for error messages and descriptions. */
const DOMAIN_LIST_FORMS =
  'example.com (that host and its subdomains), *.example.com or .example.com (subdomains only), ' +
  'an IP address (192.0.2.1, 2001:db8::1 or [2001:db8::1]) or a CIDR range (192.0.2.0/24, 2001:db8::/32); ' +
  'a name or address may add :port (example.com:8443) and a path prefix (example.com/blog)'

interface EntryBase {
  /** The entry as given. */
  written: string
  /** The entry normalised; parsing it again gives the same entry. */
  text: string
  /** Only URLs on this port (the scheme's default when the URL names none); any port when absent. */
  port?: number
  /** Only URLs whose path is this one or below it, segment-wise (normalised, lower case, no trailing slash). */
  path?: string
}

/** `example.com` (the host and its subdomains) or `*.example.com` / `.example.com` (subdomains only). */
export interface DomainNameEntry extends EntryBase {
  kind: 'name'
  /** Lower case, punycode, no trailing dot. */
  host: string
  subdomainsOnly: boolean
}

/** One IP address: matches that address written as the URL's host, never a name. */
export interface DomainAddressEntry extends EntryBase {
  kind: 'address'
  family: 4 | 6
  /** As the URL parser writes it, IPv6 without brackets. */
  address: string
}

/** A CIDR range: matches IP-literal hosts inside it, never names. */
export interface DomainRangeEntry extends EntryBase {
  kind: 'range'
  family: 4 | 6
  /** The range's first address, as the URL parser writes it. */
  network: string
  prefix: number
}

export type DomainEntry = DomainNameEntry | DomainAddressEntry | DomainRangeEntry

/** A list entry that is not one of the accepted forms; the message names the entry and the forms. */
export class DomainListError extends CodedError<'INVALID_ARGUMENT'> {
  constructor(message: string, details: { list: string; index: number; entry: string }) {
    super('INVALID_ARGUMENT', message, { details })
    this.name = 'DomainListError'
  }

  static override is(value: unknown): value is DomainListError {
    return CodedError.is(value) && value.name === 'DomainListError'
  }
}

// ---------------------------------------------------------------- addresses

// ---------------------------------------------------------------- paths

/**
 * A URL path for comparison: dot segments already resolved by the URL parser,
 * percent-encoded unreserved characters decoded (`%7E` is `~`), lower case.
 */
function comparablePath(pathname: string): string {
  return pathname
    .replace(/%([0-9a-f]{2})/gi, (escape, hex: string) => {
      const char = String.fromCharCode(parseInt(hex, 16))
      return /[A-Za-z0-9\-._~]/.test(char) ? char : escape
    })
    .toLowerCase()
}

function underPath(pathname: string, prefix: string): boolean {
  const path = comparablePath(pathname)
  return path === prefix || path.startsWith(`${prefix}/`)
}

// ---------------------------------------------------------------- parsing one entry

class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason)
}

function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) refuse(`the port "${text}" is not a number from 1 to 65535`)
  return Number(text)
}

function parsePath(text: string): string | undefined {
  const path = comparablePath(new URL(`http://host${text}`).pathname).replace(/\/+$/, '')
  return path || undefined
}

/** Splits `host[:port][/path]`, `[v6][:port][/path]` and bare `v6[/prefix]`. */
function splitEntry(text: string): { host: string; port?: string; tail: string } {
  if (text.startsWith('[')) {
    const close = text.indexOf(']')
    if (close === -1) refuse('its IPv6 address has no closing "]"')
    const after = text.slice(close + 1)
    const port = /^:([^/]*)/.exec(after)
    return { host: text.slice(0, close + 1), port: port?.[1], tail: port ? after.slice(port[0].length) : after }
  }
  const slash = text.indexOf('/')
  const head = slash === -1 ? text : text.slice(0, slash)
  const tail = slash === -1 ? '' : text.slice(slash)
  const colons = head.split(':').length - 1
  if (colons >= 2) return { host: `[${head}]`, tail }
  if (colons === 1) return { host: head.slice(0, head.indexOf(':')), port: head.slice(head.indexOf(':') + 1), tail }
  return { host: head, tail }
}

function parseEntry(written: string): DomainEntry {
  const text = written.trim()
  if (!text) refuse('it is empty')
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) refuse('it is a URL; write the host without the scheme (example.com, example.com/blog)')
  if (text.includes('@')) refuse('it holds a user name (userinfo); write the host alone')
  if (/[?#]/.test(text)) refuse('it holds a query or a fragment; an entry carries at most a path prefix')
  if (/[\s\\]/.test(text)) refuse('it holds a space or a backslash')

  const parts = splitEntry(text)
  let host = parts.host
  let subdomainsOnly = false
  if (host.startsWith('*.')) [host, subdomainsOnly] = [host.slice(2), true]
  else if (host.startsWith('.')) [host, subdomainsOnly] = [host.slice(1), true]
  if (host.includes('*')) refuse('"*" may only stand as the whole first label, as in *.example.com')
  if (!host) refuse('it names no host')
  const port = parts.port === undefined ? undefined : parsePort(parts.port)

  let canonical: string
  try {
    canonical = canonicalHost(host)
  } catch (error) {
    if (HostNameError.is(error)) refuse(`"${host}" is not a valid host name or IP address (${error.message})`)
    throw error
  }
  const ip = parseIpAddress(canonical)

  if (!ip) {
    const name = canonical
    const path = parts.tail ? parsePath(parts.tail) : undefined
    const entry: DomainNameEntry = { kind: 'name', written, text: '', host: name, subdomainsOnly }
    if (port !== undefined) entry.port = port
    if (path) entry.path = path
    entry.text = `${subdomainsOnly ? '*.' : ''}${name}${port !== undefined ? `:${port}` : ''}${path ?? ''}`
    return entry
  }

  if (subdomainsOnly) refuse('a wildcard needs a domain name, not an IP address')
  const cidr = /^\/(\d{1,3})$/.exec(parts.tail)
  if (cidr) {
    // The range as written: an IPv6 range inside ::ffff:0:0/96 becomes the IPv4 range it maps.
    const range = parseIpRange(`${canonical}${parts.tail}`)
    if ('error' in range) refuse(range.error)
    if (port !== undefined) refuse('a CIDR range takes no port')
    const network = formatIp(range)
    return { kind: 'range', written, text: `${network}/${range.prefix}`, family: range.family, network, prefix: range.prefix }
  }
  if (/^\/\d/.test(parts.tail)) refuse('after an IP address, "/" and a number is a CIDR prefix length, written alone (192.0.2.0/24), without a port or more path')
  const address = formatIp(ip)
  const path = parts.tail ? parsePath(parts.tail) : undefined
  const entry: DomainAddressEntry = { kind: 'address', written, text: '', family: ip.family, address }
  if (port !== undefined) entry.port = port
  if (path) entry.path = path
  const shown = ip.family === 6 && (port !== undefined || path) ? `[${address}]` : address
  entry.text = `${shown}${port !== undefined ? `:${port}` : ''}${path ?? ''}`
  return entry
}

// ---------------------------------------------------------------- matching

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 }

/** What of a URL the entries look at; undefined for a URL that is not http(s) or has no host. */
interface UrlParts {
  name?: string
  ip?: IpAddress
  port: number
  pathname: string
}

function urlParts(input: string | URL): UrlParts | undefined {
  let url: URL
  try {
    url = typeof input === 'string' ? new URL(input) : input
  } catch {
    return undefined
  }
  const defaultPort = DEFAULT_PORTS[url.protocol]
  if (defaultPort === undefined || !url.hostname) return undefined
  // The one canonical host; a host without one is on no entry (the fetch path has refused it before any list is asked).
  let host: string
  try {
    host = canonicalHost(url.hostname)
  } catch {
    return undefined
  }
  const ip = parseIpAddress(host)
  const port = url.port ? Number(url.port) : defaultPort
  return ip ? { ip, port, pathname: url.pathname } : { name: host, port, pathname: url.pathname }
}

function entryMatches(entry: DomainEntry, url: UrlParts): boolean {
  if (entry.kind !== 'range') {
    if (entry.port !== undefined && entry.port !== url.port) return false
    if (entry.path !== undefined && !underPath(url.pathname, entry.path)) return false
  }
  switch (entry.kind) {
    case 'name':
      if (url.name === undefined) return false
      return url.name.endsWith(`.${entry.host}`) || (!entry.subdomainsOnly && url.name === entry.host)
    case 'address':
      return url.ip !== undefined && url.ip.family === entry.family && formatIp(url.ip) === entry.address
    case 'range': {
      if (url.ip === undefined) return false
      return ipInRange(url.ip, { ...entryIp(entry), prefix: entry.prefix })
    }
  }
}

/** The value of an address or range entry's first address. */
function entryIp(entry: DomainAddressEntry | DomainRangeEntry): IpAddress {
  return { family: entry.family, value: parseIpAddress(entry.kind === 'address' ? entry.address : entry.network, { keepMapped: true })!.value }
}

/** Whether every URL `inner` admits, `outer` admits too (port and path first, then the host part). */
function entryCovers(outer: DomainEntry, inner: DomainEntry): boolean {
  if (outer.kind !== 'range') {
    if (outer.port !== undefined && (inner.kind === 'range' || inner.port !== outer.port)) return false
    if (outer.path !== undefined && (inner.kind === 'range' || inner.path === undefined || !underPath(inner.path, outer.path))) return false
  }
  switch (outer.kind) {
    case 'name':
      if (inner.kind !== 'name') return false
      return inner.host.endsWith(`.${outer.host}`) || (inner.host === outer.host && (inner.subdomainsOnly || !outer.subdomainsOnly))
    case 'address':
      return inner.kind === 'address' && inner.family === outer.family && inner.address === outer.address
    case 'range': {
      if (inner.kind === 'name') return false
      const range = { ...entryIp(outer), prefix: outer.prefix }
      if (inner.kind === 'address') return ipInRange(entryIp(inner), range)
      return inner.family === outer.family && inner.prefix >= outer.prefix && ipInRange(entryIp(inner), range)
    }
  }
}

/** What an entry admits, in words: "example.com and its subdomains on port 8443 under /blog". */
export function describeDomainEntry(entry: DomainEntry): string {
  let what: string
  switch (entry.kind) {
    case 'name':
      what = entry.subdomainsOnly ? `the subdomains of ${entry.host} (not ${entry.host} itself)` : `${entry.host} and its subdomains`
      break
    case 'address':
      what = `the address ${entry.address}`
      break
    case 'range':
      what = `the addresses in ${entry.network}/${entry.prefix}`
      break
  }
  if (entry.port !== undefined) what += ` on port ${entry.port}`
  if (entry.path !== undefined) what += ` under the path ${entry.path}`
  return what
}

/**
 * A parsed domain list. Built once per list (`parseDomainList`), which
 * refuses any entry that is not an accepted form; asked per URL.
 */
export class DomainList {
  private constructor(
    /** Names the list in messages, e.g. `blockedDomains`. */
    readonly name: string,
    readonly entries: readonly DomainEntry[],
  ) {}

  /**
   * Parses every entry; the first that is not an accepted form throws a
   * `DomainListError` naming the list, the entry and the accepted forms.
   */
  static parse(entries: readonly unknown[], name: string): DomainList {
    const parsed = entries.map((entry, index) => {
      const shown = typeof entry === 'string' ? JSON.stringify(entry) : String(entry)
      const fail = (reason: string) =>
        new DomainListError(`${name}[${index}] ${shown} is not a valid domain list entry: ${reason}. Accepted forms: ${DOMAIN_LIST_FORMS} (see ${DOMAIN_LIST_DOCS}).`, {
          list: name,
          index,
          entry: typeof entry === 'string' ? entry : String(entry),
        })
      if (typeof entry !== 'string') throw fail('it is not a string')
      try {
        return parseEntry(entry)
      } catch (error) {
        if (error instanceof Refusal) throw fail(error.message)
        throw error
      }
    })
    return new DomainList(name, parsed)
  }

  get size(): number {
    return this.entries.length
  }

  /** The entries normalised and without duplicates, in order: what to hand on to another list. */
  texts(): string[] {
    return [...new Set(this.entries.map((entry) => entry.text))]
  }

  /**
   * The first entry the URL is on, or undefined. A URL that does not parse,
   * is not http(s) or has no host is on no entry.
   */
  match(url: string | URL): DomainEntry | undefined {
    const parts = urlParts(url)
    if (!parts) return undefined
    return this.entries.find((entry) => entryMatches(entry, parts))
  }

  /** Whether the URL is on some entry (see `match`). */
  includes(url: string | URL): boolean {
    return this.match(url) !== undefined
  }

  /**
   * The first entry of `other` that this list does not cover: one that
   * admits some URL no single entry here admits. Undefined when every URL
   * `other` admits is on this list (checked entry by entry, so a name
   * covered only by two entries together counts as not covered).
   */
  uncovered(other: DomainList): DomainEntry | undefined {
    return other.entries.find((inner) => !this.entries.some((outer) => entryCovers(outer, inner)))
  }
}

/** Shorthand for `DomainList.parse`. */
export function parseDomainList(entries: readonly unknown[], name: string): DomainList {
  return DomainList.parse(entries, name)
}
