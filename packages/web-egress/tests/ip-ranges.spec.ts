import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { blockedRange } from '../src/ip-ranges.js'

// Every entry of the IANA special-purpose registries that is not globally
// reachable, with its first and last address (boundaries) where it matters.
const BLOCKED: [address: string, range: string][] = [
  ['0.0.0.0', '0.0.0.0/8'],
  ['0.255.255.255', '0.0.0.0/8'],
  ['10.0.0.0', '10.0.0.0/8'],
  ['10.255.255.255', '10.0.0.0/8'],
  ['100.64.0.0', '100.64.0.0/10'],
  ['100.127.255.255', '100.64.0.0/10'],
  ['127.0.0.1', '127.0.0.0/8'],
  ['127.255.255.254', '127.0.0.0/8'],
  ['169.254.0.0', '169.254.0.0/16'],
  ['169.254.169.254', '169.254.0.0/16'],
  ['169.254.255.255', '169.254.0.0/16'],
  ['172.16.0.0', '172.16.0.0/12'],
  ['172.31.255.255', '172.16.0.0/12'],
  ['192.0.0.0', '192.0.0.0/24'],
  ['192.0.0.8', '192.0.0.0/24'],
  ['192.0.0.170', '192.0.0.0/24'],
  ['192.0.0.255', '192.0.0.0/24'],
  ['192.0.2.1', '192.0.2.0/24'],
  ['192.88.99.1', '192.88.99.0/24'],
  ['192.168.0.0', '192.168.0.0/16'],
  ['192.168.255.255', '192.168.0.0/16'],
  ['198.18.0.0', '198.18.0.0/15'],
  ['198.19.255.255', '198.18.0.0/15'],
  ['198.51.100.7', '198.51.100.0/24'],
  ['203.0.113.9', '203.0.113.0/24'],
  ['224.0.0.1', '224.0.0.0/4'],
  ['239.255.255.255', '224.0.0.0/4'],
  ['240.0.0.1', '240.0.0.0/4'],
  ['255.255.255.254', '240.0.0.0/4'],
  ['255.255.255.255', '255.255.255.255/32'],
  ['::', '::/128'],
  ['::1', '::1/128'],
  ['::ffff:127.0.0.1', '127.0.0.0/8'],
  ['::ffff:10.1.2.3', '10.0.0.0/8'],
  ['::ffff:8.8.8.8', '::ffff:0:0/96'],
  ['::127.0.0.1', '127.0.0.0/8'],
  ['::808:808', '::/96'],
  ['64:ff9b::a9fe:a9fe', '169.254.0.0/16'],
  ['64:ff9b::808:808', '64:ff9b::/96'],
  ['64:ff9b:1::1', '64:ff9b:1::/48'],
  ['100::1', '100::/64'],
  ['2001::1', '2001::/32'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::/32'],
  ['2001:0:0a00:0001::', '2001::/32'],
  ['2001:0:808:808:0:0:f5ff:fffe', '2001::/32'],
  ['2001:2::1', '2001:2::/48'],
  ['2001:10::1', '2001:10::/28'],
  ['2001:1::4', '2001::/23'],
  ['2001:1ff:ffff::1', '2001::/23'],
  ['2001:db8::1', '2001:db8::/32'],
  ['2002:7f00:1::1', '127.0.0.0/8'],
  ['2002:c0a8:101::1', '192.168.0.0/16'],
  ['3fff::1', '3fff::/20'],
  ['3fff:fff::1', '3fff::/20'],
  ['fc00::1', 'fc00::/7'],
  ['fdff:ffff::1', 'fc00::/7'],
  ['fe80::1', 'fe80::/10'],
  ['febf::1', 'fe80::/10'],
  ['ff02::1', 'ff00::/8'],
  ['4000::1', '2000::/3'],
  ['1fff:ffff::1', '2000::/3'],
  ['5f00::1', '2000::/3'],
]

const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.0.9',
  '192.0.0.10',
  '192.0.1.0',
  '192.31.196.1',
  '192.52.193.1',
  '192.167.255.255',
  '192.169.0.0',
  '192.175.48.1',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2000::1',
  '3ffe::1',
  '2001:1::1',
  '2001:1::2',
  '2001:1::3',
  '2001:3::1',
  '2001:4:112::1',
  '2001:20::1',
  '2001:30::1',
  '2001:200::1',
  '2002:808:808::1',
  '2620:4f:8000::1',
]

describe('address policy: ranges', () => {
  it('names the most specific matching entry, whatever the row order', () => {
    assert.deepEqual(blockedRange('255.255.255.255'), { cidr: '255.255.255.255/32', name: 'limited broadcast (RFC 919)' })
    assert.equal(blockedRange('255.255.255.254')?.cidr, '240.0.0.0/4')
    // inside 2001::/23 (IETF protocol assignments), the narrower rows win
    assert.equal(blockedRange('2001:0:1::1')?.cidr, '2001::/32')
    assert.equal(blockedRange('2001:2::1')?.cidr, '2001:2::/48')
    assert.equal(blockedRange('2001:10::1')?.cidr, '2001:10::/28')
    // and a reachable /32 inside the blocked /24 lets its address through
    assert.equal(blockedRange('192.0.0.9'), undefined)
  })
  it('says an IPv6 address matching no named entry is outside 2000::/3, not in it', () => {
    assert.deepEqual(blockedRange('5f00::1'), { cidr: '2000::/3', name: 'IPv6 global unicast', outside: true })
  })
  it('names an embedded IPv4 address apart from the range it is in', () => {
    assert.deepEqual(blockedRange('::ffff:127.0.0.1'), {
      cidr: '127.0.0.0/8',
      name: 'loopback (RFC 1122)',
      embedded: { address: '127.0.0.1', via: 'IPv4-mapped' },
    })
  })

  it('reads a resolver answer with a zone index as its address (the zone picks an interface, not a range)', () => {
    assert.deepEqual(blockedRange('fe80::1%eth0'), { cidr: 'fe80::/10', name: 'link local unicast (RFC 4291)' })
    assert.deepEqual(blockedRange('0x7f.1'), { cidr: '0x7f.1', name: 'not an IP address', notAnAddress: true })
  })

  for (const [address, range] of BLOCKED) {
    it(`blocks ${address} (${range})`, () => {
      const hit = blockedRange(address)
      assert.ok(hit, `${address} should be blocked`)
      assert.equal(hit.cidr, range)
    })
  }
  for (const address of PUBLIC) {
    it(`allows globally reachable ${address}`, () => {
      assert.equal(blockedRange(address), undefined)
    })
  }
})
