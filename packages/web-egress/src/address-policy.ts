import { WebError, abortError, redactUrl } from 'dsh-web'
import { DomainList, DomainListError, HostNameError, canonicalHost, describeDomainEntry, formatIpAddress, ipInRange, parseIpAddress, parseIpRange, type IpAddress, type IpRange } from 'dsh-host'
import { type BlockedRange, blockedRange } from './ip-ranges.js'
import { FakeIpRanges, fakeIpHint, localName } from './route-checks.js'

/** One answer of `dns.lookup(name, { all: true })`. */
export interface LookupAddress {
  address: string
  family: number
}

/** The shape of `dns.lookup` called with `{ all: true }`. */
export type LookupFunction = (
  hostname: string,
  options: { all: true; order?: 'verbatim' | 'ipv4first' | 'ipv6first' },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void

export const MAX_URL_LENGTH = 8192

/** The system resolver (node:dns lookup), got at the first lookup: a start that vets no name never loads node:dns. */
const systemLookup: LookupFunction = (...args: Parameters<LookupFunction>) => (process.getBuiltinModule('node:dns').lookup as unknown as LookupFunction)(...args)

/** What vet() hands on: the parsed URL and the addresses that passed. */
export interface VettedDestination {
  url: string
  host: string
  addresses: LookupAddress[]
  /** True when the host was let through by `privateHosts`. */
  trusted: boolean
  /** The checks that held, as recorded in provenance (docs/security.md, "Through a proxy"). */
  checks: string[]
}

export interface AddressPolicyOptions {
  lookup?: LookupFunction
  privateHosts?: string[]
  allowedDomains?: string[]
  blockedDomains?: string[]
  /** CIDR ranges a local fake-IP resolver answers names with; such answers pass, for names only. */
  fakeIpRanges?: string[]
}

type TrustEntry = { kind: 'name'; name: string } | { kind: 'range'; range: IpRange; text: string }

/**
 * An operator's host name (privateHosts, resolve) in the one canonical form
 * URLs are compared in: Unicode becomes punycode as the URL parser writes
 * it, so an entry is never ignored for its spelling; one without a canonical
 * form is INVALID_ARGUMENT naming the setting.
 */
export function canonicalSettingHost(host: string, setting: string): string {
  try {
    return canonicalHost(host)
  } catch (error) {
    if (HostNameError.is(error)) throw new WebError('INVALID_ARGUMENT', `${setting}: ${error.message}`, { cause: error, details: { argument: setting } })
    throw error
  }
}

function parseTrust(entries: string[]): TrustEntry[] {
  return entries.map((entry) => {
    const text = entry.trim()
    if (!text) throw new WebError('INVALID_ARGUMENT', 'privateHosts holds an empty entry; list host names, addresses or CIDR ranges.')
    const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
    if (bare.includes('/')) {
      const range = parseIpRange(bare)
      if ('error' in range) throw new WebError('INVALID_ARGUMENT', `privateHosts entry "${text}" is not a valid CIDR range (e.g. 127.0.0.0/8): ${range.error}.`)
      return { kind: 'range', range, text }
    }
    const address = parseIpAddress(bare)
    if (address) return { kind: 'range', range: { ...address, prefix: address.family === 4 ? 32 : 128 }, text }
    return { kind: 'name', name: canonicalSettingHost(bare, 'privateHosts') }
  })
}

/**
 * A domain list from config or a request, parsed by the one matcher in
 * dsh-host; an entry that is not an accepted form is INVALID_ARGUMENT, naming
 * it. Absent: no list.
 */
export function readDomainList(entries: unknown, name: string): DomainList | undefined {
  if (entries === undefined) return undefined
  if (!Array.isArray(entries)) throw new WebError('INVALID_ARGUMENT', `${name} must be a list of domain list entries such as "example.com".`, { details: { argument: name } })
  try {
    return DomainList.parse(entries, name)
  } catch (error) {
    if (DomainListError.is(error)) throw new WebError('INVALID_ARGUMENT', error.message, { cause: error, details: { argument: name } })
    throw error
  }
}

/** The lists one URL is checked against, with how the allowed list is named in a refusal. */
export interface DomainLists {
  allowed?: DomainList
  blocked?: DomainList
  allowedLabel?: string
}

/** How a list is shown in a message: its entries as written. */
function shownEntries(list: DomainList): string {
  return list.entries.map((entry) => entry.written.trim()).join(', ') || 'no entries'
}

/** Refuses a URL on an entry of `blocked`, or on no entry of `allowed`, saying which entry or which list decided. */
export function checkDomainLists(url: URL, lists: DomainLists): void {
  const host = url.hostname
  const blocked = lists.blocked?.match(url)
  if (blocked) {
    throw new WebError('WEB_BLOCKED_URL', `The host ${host} matches the blocked domain list entry ${blocked.written.trim()}, which blocks ${describeDomainEntry(blocked)}.`, {
      details: { url: redactUrl(url), host, entry: blocked.text },
    })
  }
  if (lists.allowed && !lists.allowed.includes(url)) {
    const which = lists.allowedLabel ?? 'the allowed domain list'
    // With ports or paths in the list, the host alone does not say why.
    const detailed = lists.allowed.entries.some((entry) => entry.port !== undefined || entry.path !== undefined)
    const what = detailed ? `The URL ${redactUrl(url)}` : `The host ${host}`
    throw new WebError('WEB_BLOCKED_URL', `${what} matches no entry of ${which} (${shownEntries(lists.allowed)}).`, {
      details: { url: redactUrl(url), host },
    })
  }
}

/**
 * Step 1 of the policy: the URL itself. Refuses unparseable or overlong
 * URLs, other schemes and userinfo, and URLs the domain lists refuse.
 */
export function parseRequestUrl(input: unknown, lists: DomainLists = {}): URL {
  if (typeof input !== 'string' || !input.trim()) {
    throw new WebError('WEB_INVALID_URL', 'The URL must be a non-empty string such as https://example.com/page.')
  }
  if (input.length > MAX_URL_LENGTH) {
    throw new WebError('WEB_INVALID_URL', `The URL is ${input.length} characters long; at most ${MAX_URL_LENGTH} are accepted.`, {
      details: { limit: MAX_URL_LENGTH },
    })
  }
  let url: URL
  try {
    url = new URL(input.trim())
  } catch (cause) {
    throw new WebError('WEB_INVALID_URL', 'The URL does not parse; give an absolute http or https URL such as https://example.com/page.', { cause })
  }
  if (url.href.length > MAX_URL_LENGTH) {
    throw new WebError('WEB_INVALID_URL', `The URL is longer than ${MAX_URL_LENGTH} characters once normalised.`, { details: { limit: MAX_URL_LENGTH } })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebError('WEB_BLOCKED_URL', `The scheme "${url.protocol.slice(0, -1)}" is not allowed; only http and https URLs can be fetched.`, {
      details: { url: redactUrl(url) },
    })
  }
  if (url.username || url.password) {
    throw new WebError('WEB_BLOCKED_URL', 'URLs with a user name or password are not allowed; remove the "user:pass@" part.', {
      details: { url: redactUrl(url) },
    })
  }
  if (!url.hostname) throw new WebError('WEB_INVALID_URL', 'The URL has no host.')
  // The one canonical host, written back into the URL: what the lists, the route, the cache key and the request all read from here on.
  let host: string
  try {
    host = canonicalHost(url.hostname)
  } catch (cause) {
    if (!HostNameError.is(cause)) throw cause
    throw new WebError('WEB_INVALID_URL', `${cause.message} Write the host in its plain form (example.com, or example.com. with one trailing dot).`, { cause, details: { url: redactUrl(url), host: String(cause.details.host) } })
  }
  if (host !== url.hostname) url.hostname = host
  checkDomainLists(url, lists)
  return url
}

/** Wraps a lookup so that the names in `resolve` get fixed answers. */
export function withFixedAnswers(lookup: LookupFunction | undefined, resolve: Record<string, string | string[]> | undefined): LookupFunction | undefined {
  if (!resolve || Object.keys(resolve).length === 0) return lookup
  const table = new Map<string, LookupAddress[]>()
  for (const [host, value] of Object.entries(resolve)) {
    const addresses = (Array.isArray(value) ? value : [value]).map((text) => {
      const address = parseIpAddress(text.trim(), { keepMapped: true })
      if (!address) throw new WebError('INVALID_ARGUMENT', `resolve maps ${host} to "${text}", which is not an IP address.`)
      return { address: formatIpAddress(address), family: address.family }
    })
    table.set(canonicalSettingHost(host, 'resolve'), addresses)
  }
  const fallback = lookup ?? systemLookup
  // Asked with the canonical host of a vetted URL, which is the table's form.
  return (hostname, lookupOptions, callback) => {
    const fixed = table.get(hostname)
    if (fixed) queueMicrotask(() => callback(null, fixed.map((answer) => ({ ...answer }))))
    else fallback(hostname, lookupOptions, callback)
  }
}

function resolveAll(lookup: LookupFunction, host: string, signal?: AbortSignal): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal, `Resolving ${host}`))
    const onAbort = () => reject(abortError(signal!, `Resolving ${host}`))
    signal?.addEventListener('abort', onAbort, { once: true })
    lookup(host, { all: true, order: 'verbatim' }, (error, addresses) => {
      signal?.removeEventListener('abort', onAbort)
      if (error) {
        return reject(
          new WebError('WEB_FETCH_FAILED', `The host ${host} could not be resolved (${error.code ?? error.message}).`, {
            cause: error,
            details: { host },
          }),
        )
      }
      if (!Array.isArray(addresses) || addresses.length === 0) {
        return reject(new WebError('WEB_FETCH_FAILED', `The host ${host} resolved to no address.`, { details: { host } }))
      }
      resolve(addresses.map((answer) => ({ address: answer.address, family: answer.family })))
    })
  })
}

/**
 * The WEB_BLOCKED_ADDRESS refusal, worded for how the range decided it: the
 * address is in a refused range, carries an IPv4 address that is, lies
 * outside IPv6 global unicast, or is not an address at all. `address` is the
 * URL's IP literal, or an answer the name resolved to when `resolved` is set.
 */
function blockedAddressError(url: URL, host: string, address: string, resolved: boolean, bad: BlockedRange, hint = ''): WebError {
  const details = { url: redactUrl(url), host, address }
  if (bad.notAnAddress) {
    return new WebError('WEB_BLOCKED_ADDRESS', `The host ${host} resolved to "${address}", which is not an IP address; it is not fetched.`, { details })
  }
  const shown = resolved ? `${host} (resolves to ${address})` : host
  let what: string
  if (bad.outside) {
    what = `is outside ${bad.cidr} (${bad.name}), where all public IPv6 addresses are allocated`
  } else if (bad.embedded) {
    what = `carries the IPv4 address ${bad.embedded.address} (${bad.embedded.via}), which is in ${bad.cidr}, ${bad.name}, a range that is not public`
  } else {
    what = `is in ${bad.cidr}, ${bad.name}, which is not public`
  }
  return new WebError('WEB_BLOCKED_ADDRESS', `The destination ${shown} ${what}; it is not fetched.${hint}${trustHint(host, resolved)}`, {
    details: {
      ...details,
      range: bad.cidr,
      ...(bad.outside ? { outsideRange: true } : {}),
      ...(bad.embedded ? { embeddedAddress: bad.embedded.address } : {}),
    },
  })
}

/**
 * How an operator who means to reach a refused host trusts it: the fetch
 * row's privateHosts (dsh's --private-host), which trusts exactly what it
 * names, so an address and a name that resolves to it are trusted apart.
 */
function trustHint(host: string, isName: boolean): string {
  const apart = isName ? `; privateHosts trusts exactly what it names, so trusting the address ${host} resolves to does not trust ${host}` : ''
  return ` An operator who means to reach it trusts it with privateHosts on the fetch row (dsh: --private-host ${host})${apart}.`
}

/**
 * The refusal of a local name, the same on both routes and before any
 * lookup: here a resolver would answer it inside this network, through a
 * proxy the proxy inside its own.
 */
function localNameError(url: URL, host: string, local: string): WebError {
  return new WebError(
    'WEB_BLOCKED_ADDRESS',
    `The host ${host} is ${local}, which a resolver (here, or the proxy's) answers inside its own network; it is not fetched, on any route, and nothing was looked up or sent.${trustHint(host, true)}`,
    { details: { url: redactUrl(url), host, localName: true } },
  )
}

/**
 * Steps 1 to 3 of the address policy for one hop. Never opens a connection:
 * the addresses it returns are the only ones the dispatcher may connect to.
 */
export class AddressPolicy {
  private readonly lookup: LookupFunction
  private readonly trust: TrustEntry[]
  private readonly lists: DomainLists
  private readonly fakeIpRanges: FakeIpRanges

  constructor(options: AddressPolicyOptions = {}) {
    this.lookup = options.lookup ?? systemLookup
    this.trust = parseTrust(options.privateHosts ?? [])
    this.fakeIpRanges = new FakeIpRanges(options.fakeIpRanges ?? [])
    // The operator's lists: an empty one restricts nothing.
    const operatorList = (entries: string[] | undefined, name: string) => (entries?.length ? readDomainList(entries, name) : undefined)
    this.lists = { allowed: operatorList(options.allowedDomains, 'allowedDomains'), blocked: operatorList(options.blockedDomains, 'blockedDomains') }
  }

  /**
   * Step 1: the URL, the operator's domain lists, then the request's own
   * allowed list (parsed here, at every hop: a bad entry is INVALID_ARGUMENT;
   * present but empty, it admits nothing).
   */
  parse(input: unknown, allowedDomains?: string[]): URL {
    const requested = readDomainList(allowedDomains, 'request.allowedDomains')
    const url = parseRequestUrl(input, this.lists)
    if (requested) checkDomainLists(url, { allowed: requested, allowedLabel: "this request's allowed domain list" })
    return url
  }

  /**
   * The hop's canonical host (the URL's own, once `parse` wrote it back), its
   * IP literal, and whether privateHosts trusts it; a local name that is not
   * trusted is refused here, before either route looks anything up.
   */
  private hostOf(url: URL): { host: string; literal: IpAddress | undefined; trusted: boolean } {
    const host = canonicalHost(url.hostname)
    // As written: an IPv4-mapped literal stays IPv6, and is pinned and named so.
    const literal = parseIpAddress(url.hostname, { keepMapped: true })
    const trusted = this.isTrusted(host, literal && parseIpAddress(url.hostname))
    const local = literal || trusted ? undefined : localName(host)
    if (local) throw localNameError(url, host, local)
    return { host, literal, trusted }
  }

  /** Whether privateHosts names this URL's host exactly (by name or as a literal address). */
  private isTrusted(host: string, literal: IpAddress | undefined): boolean {
    for (const entry of this.trust) {
      if (entry.kind === 'name' && !literal && entry.name === host) return true
      if (entry.kind === 'range' && literal && ipInRange(literal, entry.range)) return true
    }
    return false
  }

  /**
   * Steps 2 and 3 for the direct route: every answer of the name (or the
   * literal) must be public, or in a declared fake-IP range for a name.
   */
  async vetUrl(url: URL, signal?: AbortSignal): Promise<VettedDestination> {
    const { host, literal, trusted } = this.hostOf(url)
    let addresses: LookupAddress[]
    if (literal) {
      addresses = [{ address: formatIpAddress(literal), family: literal.family }]
    } else {
      addresses = await resolveAll(this.lookup, host, signal)
    }
    const checks = [trusted ? 'trusted' : literal ? 'literal-public' : 'answers-public']
    if (!trusted && this.checkAnswers(url, host, addresses, !literal)) checks.push('fake-ip-answer')
    return { url: url.href, host, addresses, trusted, checks: [...checks, 'pinned'] }
  }

  /**
   * Steps 2 and 3 for the proxy route, where the proxy resolves the name and
   * nothing can be pinned: a literal must be public; a name must not be a
   * local name and, with `resolveLocally`, every local answer must be public
   * or fake-IP (advisory: the proxy may resolve it otherwise). A name that
   * does not resolve here at all still goes to the proxy. `privateHosts`
   * trusts exactly what it names. Nothing is sent before this returns.
   */
  async vetForProxy(url: URL, options: { resolveLocally: boolean; proxy: string }, signal?: AbortSignal): Promise<VettedDestination> {
    const { host, literal, trusted } = this.hostOf(url)
    if (trusted) return { url: url.href, host, addresses: [], trusted, checks: ['trusted'] }
    if (literal) {
      const address = formatIpAddress(literal)
      const bad = blockedRange(literal)
      if (bad) throw blockedAddressError(url, host, address, false, bad, `${fakeIpHint(address, false)} Nothing was sent to the proxy ${options.proxy}.`)
      return { url: url.href, host, addresses: [{ address, family: literal.family }], trusted, checks: ['literal-public'] }
    }
    if (!options.resolveLocally) return { url: url.href, host, addresses: [], trusted, checks: ['name-not-local'] }
    let addresses: LookupAddress[]
    try {
      addresses = await resolveAll(this.lookup, host, signal)
    } catch (error) {
      const code = (WebError.is(error) ? (error.cause as NodeJS.ErrnoException | undefined)?.code : undefined) ?? ''
      const unresolved = WebError.is(error) && error.code === 'WEB_FETCH_FAILED' && (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA' || !error.cause)
      if (unresolved) return { url: url.href, host, addresses: [], trusted, checks: ['name-not-local', 'unresolved-locally'] }
      throw error
    }
    const checks = ['name-not-local', 'answers-public']
    if (this.checkAnswers(url, host, addresses, true)) checks.push('fake-ip-answer')
    return { url: url.href, host, addresses, trusted, checks }
  }

  /** Throws for the first answer that is not public (fake-IP answers of a name pass); true when a fake-IP answer passed. */
  private checkAnswers(url: URL, host: string, addresses: LookupAddress[], resolved: boolean): boolean {
    let fake = false
    for (const answer of addresses) {
      const bad = blockedRange(answer.address)
      if (!bad) continue
      if (resolved && this.fakeIpRanges.includes(answer.address)) {
        fake = true
        continue
      }
      throw blockedAddressError(url, host, answer.address, resolved, bad, fakeIpHint(answer.address, resolved))
    }
    return fake
  }

  async vet(input: unknown, signal?: AbortSignal): Promise<VettedDestination> {
    return this.vetUrl(this.parse(input), signal)
  }
}
