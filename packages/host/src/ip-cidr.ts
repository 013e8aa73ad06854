import { isIP } from 'node:net'

/**
 * The family's one CIDR matcher: the domain lists, the fetcher's privateHosts
 * and its fake-IP ranges all compare addresses here. Built on node:net and
 * bigint, since the contract depends on nothing. An IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`) is the IPv4 address it carries, so a range written
 * either way matches both spellings of the same destination.
 */
export interface IpAddress {
  family: 4 | 6
  value: bigint
}

/** A CIDR range; `value` is its first address (the host bits cleared). */
export interface IpRange extends IpAddress {
  prefix: number
}

const IPV4_MAPPED = 0xffffn << 32n

function ipv4Value(dotted: string): bigint {
  return dotted.split('.').reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n)
}

/** An IPv6 address as the URL parser serialises it (hex groups, at most one `::`, no dotted tail). */
function ipv6Value(text: string): bigint {
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined]
  const groups = (part: string | undefined) => (part ? part.split(':') : [])
  const left = groups(head)
  const right = groups(tail)
  const all = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
  return all.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n)
}

/** An IPv6 value inside ::ffff:0:0/96 as the IPv4 address it maps; any other address as it is. */
function unmapped(address: IpAddress): IpAddress {
  if (address.family === 6 && address.value >> 32n === IPV4_MAPPED >> 32n) return { family: 4, value: address.value & 0xffffffffn }
  return address
}

/**
 * An IP literal: dotted-quad IPv4 (four decimal parts, nothing looser), or
 * IPv6 with or without brackets. Undefined for anything else, a zone index
 * (`fe80::1%eth0`) included. `keepMapped` leaves an IPv4-mapped address in
 * IPv6 form, for a range's first address whose prefix counts 128 bits.
 */
export function parseIpAddress(text: string, options: { keepMapped?: boolean } = {}): IpAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  switch (isIP(bare)) {
    case 4:
      return { family: 4, value: ipv4Value(bare) }
    case 6: {
      if (bare.includes('%')) return undefined
      // The URL parser writes the canonical form: hex groups, a dotted tail folded in.
      const address: IpAddress = { family: 6, value: ipv6Value(new URL(`http://[${bare}]/`).hostname.slice(1, -1)) }
      return options.keepMapped ? address : unmapped(address)
    }
    default:
      return undefined
  }
}

/**
 * A range written `ADDRESS/PREFIX`, or why it is not one. An IPv6 range inside
 * ::ffff:0:0/96 becomes the IPv4 range it maps (`::ffff:10.0.0.0/104` is
 * 10.0.0.0/8) unless `keepMapped` keeps it IPv6 (a table of IPv6 ranges that
 * names the mapped block itself, as the egress policy's does); host bits set
 * in the address are cleared.
 */
export function parseIpRange(text: string, options: { keepMapped?: boolean } = {}): IpRange | { error: string } {
  const match = /^(.+)\/(\d{1,3})$/.exec(text)
  if (!match) return { error: 'it is not ADDRESS/PREFIX' }
  const bare = match[1]!.startsWith('[') && match[1]!.endsWith(']') ? match[1]!.slice(1, -1) : match[1]!
  const family = isIP(bare)
  if (family === 0 || bare.includes('%')) return { error: `"${match[1]}" is not an IP address` }
  const prefix = Number(match[2])
  const bits = family === 4 ? 32 : 128
  if (prefix > bits) return { error: `the prefix length /${prefix} is longer than ${bits} bits` }
  // Parsed without unmapping, so that the prefix keeps counting 128 bits.
  const { value } = parseIpAddress(bare, { keepMapped: true })!
  let range: IpRange = { family: family === 4 ? 4 : 6, value, prefix }
  if (family === 6 && !options.keepMapped && prefix >= 96 && value >> 32n === IPV4_MAPPED >> 32n) range = { family: 4, value: value & 0xffffffffn, prefix: prefix - 96 }
  return { ...range, value: networkOf(range) }
}

function networkOf(range: IpRange): bigint {
  const shift = BigInt((range.family === 4 ? 32 : 128) - range.prefix)
  return (range.value >> shift) << shift
}

/** Whether the address lies in the range; an IPv4 address is also compared as its IPv4-mapped IPv6 form. */
export function ipInRange(address: IpAddress, range: IpRange): boolean {
  const ip = unmapped(address)
  if (ip.family === 6 && range.family === 4) return false
  const value = ip.family === 4 && range.family === 6 ? IPV4_MAPPED | ip.value : ip.value
  const shift = BigInt((range.family === 4 ? 32 : 128) - range.prefix)
  return value >> shift === range.value >> shift
}

/** The address as the URL parser writes it: dotted IPv4, compressed IPv6 without brackets. */
export function formatIpAddress(address: IpAddress): string {
  if (address.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join('.')
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => ((address.value >> shift) & 0xffffn).toString(16))
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1)
}
