import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ipInRange, parseIpAddress, parseIpRange, type IpRange } from 'dsh-host'

// The one CIDR matcher the domain lists, privateHosts and proxy.fakeIpRanges share: range, address, whether the address is in it.
const MATCHES: [range: string, address: string, inside: boolean][] = [
  // IPv4, the edges of a /24 and the addresses either side
  ['192.0.2.0/24', '192.0.2.0', true],
  ['192.0.2.0/24', '192.0.2.255', true],
  ['192.0.2.0/24', '192.0.1.255', false],
  ['192.0.2.0/24', '192.0.3.0', false],
  // a network written with host bits set is the network they belong to
  ['192.0.2.77/24', '192.0.2.1', true],
  // /0 holds every address of its family and none of the other
  ['0.0.0.0/0', '203.0.113.9', true],
  ['0.0.0.0/0', '2001:db8::1', false],
  ['::/0', '2001:db8::1', true],
  ['::/0', '203.0.113.9', true],
  // /32 and /128: one address
  ['198.51.100.7/32', '198.51.100.7', true],
  ['198.51.100.7/32', '198.51.100.8', false],
  ['2001:db8::1/128', '2001:db8::1', true],
  ['2001:db8::1/128', '2001:db8::2', false],
  ['[2001:db8::1]/128', '[2001:db8::1]', true],
  // IPv6 prefixes that do not fall on a group boundary
  ['fc00::/7', 'fd12:3456::1', true],
  ['fc00::/7', 'fe00::1', false],
  ['2001:db8::/33', '2001:db8:7fff::1', true],
  ['2001:db8::/33', '2001:db8:8000::1', false],
  // IPv4-mapped IPv6: the IPv4 address it carries, in either spelling, against a range written either way
  ['10.0.0.0/8', '::ffff:10.1.2.3', true],
  ['10.0.0.0/8', '[::ffff:a01:203]', true],
  ['10.0.0.0/8', '::ffff:11.0.0.1', false],
  ['::ffff:10.0.0.0/104', '10.200.0.1', true],
  ['::ffff:0:0/96', '192.0.2.1', true],
  ['::ffff:0:0/95', '192.0.2.1', true],
  ['::ffff:0:0/96', '2001:db8::1', false],
  // a dotted tail on a plain IPv6 address is not a mapped one
  ['192.0.2.0/24', '64:ff9b::192.0.2.1', false],
]

const NOT_ADDRESSES = ['', 'example.com', '192.0.2', '192.0.2.1.5', '0x7f.0.0.1', '127.1', '256.0.0.1', '2001:db8::g', 'fe80::1%eth0', '[192.0.2.1]x', ' 192.0.2.1']

const NOT_RANGES: [text: string, reason: RegExp][] = [
  ['192.0.2.0', /not ADDRESS\/PREFIX/],
  ['192.0.2.0/', /not ADDRESS\/PREFIX/],
  ['192.0.2.0/24/8', /not an IP address/],
  ['192.0.2.0/33', /\/33 is longer than 32 bits/],
  ['2001:db8::/129', /\/129 is longer than 128 bits/],
  ['::ffff:10.0.0.0/129', /longer than 128 bits/],
  ['example.com/24', /"example.com" is not an IP address/],
  ['10/8', /"10" is not an IP address/],
  ['fe80::%eth0/64', /not an IP address/],
  ['192.0.2.0/-1', /not ADDRESS\/PREFIX/],
  ['192.0.2.0/1234', /not ADDRESS\/PREFIX/],
]

describe('the one CIDR matcher (ip-cidr)', () => {
  for (const [range, address, inside] of MATCHES) {
    it(`${address} is ${inside ? '' : 'not '}in ${range}`, () => {
      const parsedRange = parseIpRange(range)
      assert.ok(!('error' in parsedRange), `${range} parses`)
      const parsedAddress = parseIpAddress(address)
      assert.ok(parsedAddress, `${address} parses`)
      assert.equal(ipInRange(parsedAddress, parsedRange), inside)
    })
  }

  it('refuses what is not an IP literal, looser IPv4 forms and zone indexes included', () => {
    for (const text of NOT_ADDRESSES) assert.equal(parseIpAddress(text), undefined, JSON.stringify(text))
  })

  for (const [text, reason] of NOT_RANGES) {
    it(`refuses the range ${JSON.stringify(text)}, saying why`, () => {
      const range = parseIpRange(text)
      assert.ok('error' in range, `${text} is refused`)
      assert.match(range.error, reason)
    })
  }

  it('clears host bits and turns a range inside ::ffff:0:0/96 into the IPv4 range it maps', () => {
    assert.deepEqual(parseIpRange('192.0.2.77/24'), { family: 4, value: 0xc0000200n, prefix: 24 })
    assert.deepEqual(parseIpRange('::ffff:10.9.8.7/104'), { family: 4, value: 0x0a000000n, prefix: 8 })
    assert.deepEqual(parseIpRange('::ffff:0:0/95'), { family: 6, value: 0xfffe00000000n, prefix: 95 })
    assert.deepEqual(parseIpAddress('::ffff:192.0.2.1'), { family: 4, value: 0xc0000201n })
    assert.deepEqual(parseIpAddress('::ffff:192.0.2.1', { keepMapped: true }), { family: 6, value: 0xffffc0000201n })
  })

  it('keeps a range inside ::ffff:0:0/96 IPv6 when asked, for a table that names the mapped block itself', () => {
    const mapped = parseIpRange('::ffff:0:0/96', { keepMapped: true })
    assert.deepEqual(mapped, { family: 6, value: 0xffff00000000n, prefix: 96 })
    assert.equal(ipInRange(parseIpAddress('::ffff:192.0.2.1', { keepMapped: true })!, mapped as IpRange), true)
    assert.equal(ipInRange(parseIpAddress('2001:db8::1')!, mapped as IpRange), false)
  })
})
