import { formatIpAddress, ipInRange, parseIpAddress, parseIpRange, type IpAddress, type IpRange } from 'dsh-host'

// The tables are matched with the contract's one CIDR matcher (dsh-host's
// ip-cidr); an address is taken as written, an IPv4-mapped IPv6 one staying
// IPv6 (its IPv4 address is checked as an embedded one below).

/** Why an address is refused: the range that decided it, and how. */
export interface BlockedRange {
  /**
   * The refused range the address is in; with `outside`, the range it is
   * *not* in (IPv6 global unicast 2000::/3); with `notAnAddress`, the input.
   */
  cidr: string
  /** What `cidr` is, e.g. "private use (RFC 1918)" or "IPv6 global unicast". */
  name: string
  /** Set when the address is refused for lying outside `cidr`, not inside it. */
  outside?: true
  /** Set when the input does not parse as an IP address at all. */
  notAnAddress?: true
  /** Set when `cidr` holds an IPv4 address carried inside the IPv6 one, not the IPv6 address itself. */
  embedded?: { address: string; via: string }
}

interface RangeEntry {
  cidr: string
  name: string
  range: IpRange
}

/** Kept as written: ::ffff:0:0/96 names the IPv4-mapped block of IPv6, not all of IPv4. */
function parseRange(cidr: string): IpRange {
  const range = parseIpRange(cidr, { keepMapped: true })
  if ('error' in range) throw new TypeError(`${cidr}: ${range.error}`)
  return range
}

/** A table parsed at its first use, not when the module loads (a start that never vets an address never parses one). */
function table(rows: [cidr: string, name: string][]): () => RangeEntry[] {
  let parsed: RangeEntry[] | undefined
  return () => (parsed ??= rows.map(([cidr, name]) => ({ cidr, name, range: parseRange(cidr) })))
}

/**
 * IANA IPv4 Special-Purpose Address Registry entries that are not globally
 * reachable, plus multicast and the limited broadcast address. Entries whose
 * registry row says "globally reachable: True" are listed in IPV4_REACHABLE
 * and let through even when a wider blocked block contains them.
 */
const IPV4_BLOCKED = table([
  ['0.0.0.0/8', '"this network" (RFC 791)'],
  ['10.0.0.0/8', 'private use (RFC 1918)'],
  ['100.64.0.0/10', 'shared address space / carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback (RFC 1122)'],
  ['169.254.0.0/16', 'link local (RFC 3927)'],
  ['172.16.0.0/12', 'private use (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0/24', 'documentation TEST-NET-1 (RFC 5737)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0/16', 'private use (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0/24', 'documentation TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  ['240.0.0.0/4', 'reserved (RFC 1112)'],
  ['255.255.255.255/32', 'limited broadcast (RFC 919)'],
])

const IPV4_REACHABLE = table([
  ['192.0.0.9/32', 'port control protocol anycast (RFC 7723)'],
  ['192.0.0.10/32', 'traversal using relays around NAT anycast (RFC 8155)'],
])

/**
 * IPv6: everything outside global unicast 2000::/3 is refused first (loopback,
 * unspecified, IPv4-mapped, IPv4-compatible, NAT64, discard-only, unique local,
 * link local, multicast...). Inside 2000::/3, the registry entries that are not
 * globally reachable.
 */
const IPV6_GLOBAL_UNICAST = table([['2000::/3', 'IPv6 global unicast']])

const IPV6_OUTSIDE = table([
  ['::/128', 'unspecified (RFC 4291)'],
  ['::1/128', 'loopback (RFC 4291)'],
  ['::ffff:0:0/96', 'IPv4-mapped (RFC 4291)'],
  ['::/96', 'IPv4-compatible, deprecated (RFC 4291)'],
  ['64:ff9b::/96', 'IPv4/IPv6 translation NAT64 (RFC 6052)'],
  ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['fc00::/7', 'unique local (RFC 4193)'],
  ['fe80::/10', 'link local unicast (RFC 4291)'],
  ['ff00::/8', 'multicast (RFC 4291)'],
])

const IPV6_BLOCKED = table([
  ['2001::/32', 'Teredo (RFC 4380)'],
  ['2001:2::/48', 'benchmarking (RFC 5180)'],
  ['2001:10::/28', 'deprecated ORCHID (RFC 4843)'],
  ['2001::/23', 'IETF protocol assignments (RFC 2928)'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['2002::/16', '6to4 (RFC 3056)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
])

const IPV6_REACHABLE = table([
  ['2001:1::1/128', 'port control protocol anycast (RFC 7723)'],
  ['2001:1::2/128', 'traversal using relays around NAT anycast (RFC 8155)'],
  ['2001:1::3/128', 'DNS-SD service registration protocol anycast (RFC 9665)'],
  ['2001:3::/32', 'AMT (RFC 7450)'],
  ['2001:4:112::/48', 'AS112-v6 (RFC 7535)'],
  ['2001:20::/28', 'ORCHIDv2 (RFC 7343)'],
  ['2001:30::/28', 'drone remote ID protocol entity tags (RFC 9374)'],
])

/** The most specific entry (longest prefix) that holds the address; row order does not matter. */
function find(address: IpAddress, entries: RangeEntry[]): RangeEntry | undefined {
  let best: RangeEntry | undefined
  for (const entry of entries) {
    if (entry.range.family !== address.family || !ipInRange(address, entry.range)) continue
    if (!best || entry.range.prefix > best.range.prefix) best = entry
  }
  return best
}

/**
 * The blocked entry that decides, unless a strictly more specific reachable
 * entry holds the address (e.g. 192.0.0.9/32 inside 192.0.0.0/24). On a tie
 * the address is refused.
 */
function decide(address: IpAddress, blocked: RangeEntry[], reachable: RangeEntry[]): BlockedRange | undefined {
  const hit = find(address, blocked)
  if (!hit) return undefined
  const exception = find(address, reachable)
  if (exception && exception.range.prefix > hit.range.prefix) return undefined
  return { cidr: hit.cidr, name: hit.name }
}

function ipv4FromParts(high: number, low: number): IpAddress {
  return { family: 4, value: (BigInt(high) << 16n) | BigInt(low) }
}

/** The eight 16-bit groups of an IPv6 address, most significant first. */
function groupsOf(address: IpAddress): number[] {
  return [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((address.value >> shift) & 0xffffn))
}

/** IPv4 addresses carried inside an IPv6 address, with how they are carried. */
export function embeddedIPv4(address: IpAddress): { address: IpAddress; via: string }[] {
  const parts = groupsOf(address)
  const out: { address: IpAddress; via: string }[] = []
  const zeros = (from: number, to: number) => parts.slice(from, to).every((part) => part === 0)
  if (zeros(0, 5) && parts[5] === 0xffff) out.push({ address: ipv4FromParts(parts[6]!, parts[7]!), via: 'IPv4-mapped' })
  else if (zeros(0, 6) && (parts[6] !== 0 || parts[7]! > 1)) out.push({ address: ipv4FromParts(parts[6]!, parts[7]!), via: 'IPv4-compatible' })
  if (parts[0] === 0x64 && parts[1] === 0xff9b && zeros(2, 6)) {
    out.push({ address: ipv4FromParts(parts[6]!, parts[7]!), via: 'NAT64' })
  }
  if (parts[0] === 0x2002) out.push({ address: ipv4FromParts(parts[1]!, parts[2]!), via: '6to4' })
  // Teredo (2001::/32) carries a server and a client IPv4 address; the whole
  // block is refused anyway, so it is named as Teredo (see blockedRange).
  if (parts[0] === 0x2001 && parts[1] === 0) {
    out.push({ address: ipv4FromParts(parts[2]!, parts[3]!), via: 'Teredo server' })
    out.push({ address: ipv4FromParts(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff), via: 'Teredo client' })
  }
  return out
}

function checkIPv4(address: IpAddress): BlockedRange | undefined {
  return decide(address, IPV4_BLOCKED(), IPV4_REACHABLE())
}

/**
 * Why an address is refused, or undefined when it is globally reachable
 * unicast. The most specific matching entry names the range (255.255.255.255
 * is limited broadcast, not the reserved 240.0.0.0/4 around it). An IPv4
 * address embedded in an IPv6 one is checked too and named first when it is
 * the worse news (e.g. ::ffff:127.0.0.1 names loopback, with `embedded` set).
 */
export function blockedRange(input: string | IpAddress): BlockedRange | undefined {
  // A zone index (fe80::1%eth0, as a resolver may answer a link-local name) picks an interface, not a range.
  const address = typeof input === 'string' ? parseIpAddress(input.replace(/%[^%\]]*$/, ''), { keepMapped: true }) : input
  if (!address) return { cidr: String(input), name: 'not an IP address', notAnAddress: true }
  if (address.family === 4) return checkIPv4(address)
  const parts = groupsOf(address)
  const teredo = parts[0] === 0x2001 && parts[1] === 0
  for (const inner of embeddedIPv4(address)) {
    if (teredo) break
    const bad = checkIPv4(inner.address)
    if (bad) return { ...bad, embedded: { address: formatIpAddress(inner.address), via: inner.via } }
  }
  if (!ipInRange(address, IPV6_GLOBAL_UNICAST()[0].range)) {
    const hit = find(address, IPV6_OUTSIDE())
    return hit ? { cidr: hit.cidr, name: hit.name } : { cidr: '2000::/3', name: 'IPv6 global unicast', outside: true }
  }
  // 6to4 with a public IPv4 inside is an ordinary global address.
  if (parts[0] === 0x2002) return undefined
  return decide(address, IPV6_BLOCKED(), IPV6_REACHABLE())
}
