// canonicalHost: the one form of a host every route, list and request uses,
// and the names it refuses because a proxy or resolver would read them as
// another name. Table-driven over the forms the URL parser folds, and over
// every comparison that uses it (domain lists, NO_PROXY).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DomainList, HostNameError, canonicalHost } from '../src/index.js'
import { shouldProxy } from '../src/proxy-route.js'

const SAME: [written: string, canonical: string][] = [
  ['Example.COM', 'example.com'],
  ['example.com.', 'example.com'],
  ['bücher.example', 'xn--bcher-kva.example'],
  ['BÜCHER.example.', 'xn--bcher-kva.example'],
  ['ｅｘａｍｐｌｅ．ｃｏｍ', 'example.com'],
  ['exam%70le.com', 'example.com'],
  ['example\u3002com', 'example.com'],
  ['a_b.example', 'a_b.example'],
  ['127.1', '127.0.0.1'],
  ['0x7f.0.0.1.', '127.0.0.1'],
  ['2130706433', '127.0.0.1'],
  ['::1', '[::1]'],
  ['[0:0::1]', '[::1]'],
  ['::FFFF:127.0.0.1', '[::ffff:7f00:1]'],
]

const MALFORMED: [written: string, reason: RegExp][] = [
  ['', /empty/],
  ['example.com..', /empty label/],
  ['.example.com', /empty label/],
  ['a..b', /empty label/],
  ['example.%2e', /empty label/],
  ["it's.example", /label "it's" holds characters/],
  ['a$b.example', /label "a\$b" holds characters/],
  ['a*b.example', /holds characters/],
  [`${'a'.repeat(64)}.example`, /longer than 63/],
  [`${'a.'.repeat(127)}ab`, /longer than 253/],
  ['example.com:80', /":" outside an IPv6 address/],
  ['example.com/path', /"\/"/],
  ['user@example.com', /"@"/],
  ['[::1', /URL parser|":"/],
  ['xn--a', /URL parser/],
  ['x'.repeat(2000), /longer than 1024/],
]

describe('canonicalHost', () => {
  for (const [written, canonical] of SAME) {
    it(`writes ${JSON.stringify(written)} as ${canonical}, and is idempotent`, () => {
      assert.equal(canonicalHost(written), canonical)
      assert.equal(canonicalHost(canonical), canonical)
    })
  }
  for (const [written, reason] of MALFORMED) {
    it(`refuses ${JSON.stringify(written.slice(0, 40))} as malformed`, () => {
      assert.throws(() => canonicalHost(written), (error: unknown) => {
        assert.ok(HostNameError.is(error))
        assert.equal(error.code, 'INVALID_ARGUMENT')
        assert.match(error.message, /is not a host name every resolver and proxy reads the same way/)
        assert.match(error.message, reason)
        return true
      })
    })
  }
})

describe('every comparison reads the canonical host', () => {
  // Each entry spelling against each URL spelling of the same host.
  const entries = ['bücher.example', 'XN--BCHER-KVA.example.', 'Bücher.Example.']
  const urls = ['http://bücher.example/', 'http://XN--bcher-kva.EXAMPLE./', 'http://BÜCHER.example./page']

  it('domain lists: every spelling of an entry matches every spelling of the URL', () => {
    for (const entry of entries) {
      const list = DomainList.parse([entry], 'allowedDomains')
      assert.equal(list.texts()[0], 'xn--bcher-kva.example')
      for (const url of urls) assert.ok(list.includes(url), `${entry} / ${url}`)
    }
  })

  it('domain lists: an entry without a canonical form is refused; a URL without one is on no entry', () => {
    assert.throws(() => DomainList.parse(['example..com'], 'blockedDomains'), /blockedDomains\[0\].*empty label/)
    assert.equal(DomainList.parse(['localhost'], 'blockedDomains').includes('http://localhost../'), false)
  })

  it('NO_PROXY: every spelling of an entry sends every spelling of the URL direct', () => {
    for (const entry of entries) for (const url of urls) assert.equal(shouldProxy(new URL(url), entry), false, `${entry} / ${url}`)
    assert.equal(shouldProxy(new URL('http://LOCALHOST./'), 'localhost'), false)
    assert.equal(shouldProxy(new URL('http://[::1]:8080/'), '[0::1]'), false)
    assert.equal(shouldProxy(new URL('http://other.example/'), 'bücher.example'), true)
  })

  it('NO_PROXY: a URL without a canonical host is refused, never routed', () => {
    assert.throws(() => shouldProxy(new URL('http://localhost../'), 'localhost'), (error: unknown) => HostNameError.is(error))
  })
})
