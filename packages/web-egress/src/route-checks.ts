import { ipInRange, parseIpAddress, parseIpRange, type IpRange } from 'dsh-host'
import { WebError } from 'dsh-web'

/**
 * Ranges that local fake-IP resolvers (Clash, sing-box, Surge, TUN-mode VPN
 * clients) answer names with, each address standing for a name the proxy
 * resolves later. Only named in refusals, never exempted by default.
 */
export const WELL_KNOWN_FAKE_IP_RANGES = ['198.18.0.0/15', 'fc00::/7']

function parseRanges(entries: string[], name: string): IpRange[] {
  return entries.map((entry) => {
    const range = parseIpRange(entry.trim())
    if ('error' in range) {
      throw new WebError('INVALID_ARGUMENT', `${name} entry "${entry}" is not a CIDR range such as 198.18.0.0/15 (${range.error}).`, { details: { argument: name } })
    }
    return range
  })
}

function inRanges(ranges: IpRange[], text: string): boolean {
  const address = parseIpAddress(text)
  return address !== undefined && ranges.some((range) => ipInRange(address, range))
}

/** The operator's fake-IP ranges (`proxy.fakeIpRanges`): answers for names in them pass the address check. */
export class FakeIpRanges {
  private readonly ranges: IpRange[]

  constructor(entries: string[]) {
    this.ranges = parseRanges(entries, 'proxy.fakeIpRanges')
  }

  includes(address: string): boolean {
    return inRanges(this.ranges, address)
  }
}

// Parsed at the first refusal that asks, not when the module loads.
let wellKnown: IpRange[] | undefined

/** The sentence added to a refusal whose address lies in a well-known fake-IP range: which setting would allow it, and for what. */
export function fakeIpHint(address: string, resolved: boolean): string {
  if (!inRanges((wellKnown ??= parseRanges(WELL_KNOWN_FAKE_IP_RANGES, 'WELL_KNOWN_FAKE_IP_RANGES')), address)) return ''
  if (!resolved) return ' Fake-IP ranges (proxy.fakeIpRanges) exempt answers for names, never an address written in the URL.'
  return ' If this machine resolves names through a fake-IP resolver (Clash, sing-box and the like), list its range in proxy.fakeIpRanges of the web-fetch-http row.'
}

/** Suffixes that never name a public host (RFC 6761, 6762, 8375, ICANN's .internal) and cloud metadata names. */
const LOCAL_SUFFIXES: [suffix: string, what: string][] = [
  ['localhost', 'a loopback name (RFC 6761)'],
  ['local', 'a multicast DNS name (RFC 6762)'],
  ['internal', 'a private-use name (.internal)'],
  ['home.arpa', 'a home network name (RFC 8375)'],
  ['localdomain', 'a local name'],
  ['lan', 'a local network name'],
  ['intranet', 'a local network name'],
  ['corp', 'a local network name'],
  ['private', 'a local network name'],
  ['home', 'a local network name'],
]

const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal'])

/**
 * Why a host name is local (a phrase for a refusal), or undefined when it may
 * be public. A name without a dot is local too: public DNS has no such hosts,
 * and a proxy would complete it with its own search domains.
 */
export function localName(host: string): string | undefined {
  if (METADATA_NAMES.has(host)) return 'a cloud metadata service name'
  for (const [suffix, what] of LOCAL_SUFFIXES) if (host === suffix || host.endsWith(`.${suffix}`)) return what
  if (!host.includes('.')) return 'a name without a dot (a proxy would complete it with its own search domains)'
  return undefined
}
