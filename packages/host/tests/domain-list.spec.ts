import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DomainList, DomainListError, describeDomainEntry } from 'dsh-host'
import { parseDomainList } from '../src/domain-list.js'

// One row per form of docs/security.md, "Domain lists": entry, URL, whether the URL is on the entry.
const MATCHES: [entry: string, url: string, on: boolean][] = [
  // plain name: the host and every subdomain, never a lookalike
  ['example.com', 'https://example.com/', true],
  ['example.com', 'https://www.example.com/a', true],
  ['example.com', 'http://a.b.example.com:8080/', true],
  ['example.com', 'https://notexample.com/', false],
  ['example.com', 'https://example.com.evil.test/', false],
  ['example.com', 'https://com/', false],
  // *.example.com and .example.com: subdomains only, at any depth
  ['*.example.com', 'https://www.example.com/', true],
  ['*.example.com', 'https://a.b.example.com/', true],
  ['*.example.com', 'https://example.com/', false],
  ['.example.com', 'https://www.example.com/', true],
  ['.example.com', 'https://example.com/', false],
  ['*.example.com', 'https://notexample.com/', false],
  // internationalised names: Unicode and punycode are the same host, on either side
  ['bücher.example', 'https://xn--bcher-kva.example/', true],
  ['bücher.example', 'https://www.bücher.example/', true],
  ['xn--bcher-kva.example', 'https://bücher.example/', true],
  ['BÜCHER.example', 'https://Bücher.Example/', true],
  ['*.bücher.example', 'https://xn--bcher-kva.example/', false],
  ['*.bücher.example', 'https://shop.xn--bcher-kva.example/', true],
  // case and trailing dots, on entries and hosts
  ['EXAMPLE.com.', 'https://example.COM/', true],
  ['example.com', 'https://www.example.com./', true],
  ['example.com.', 'https://example.com./', true],
  // ports: the URL's port, or its scheme's default; no port in the entry = any port
  ['example.com:8443', 'https://example.com:8443/', true],
  ['example.com:8443', 'https://www.example.com:8443/', true],
  ['example.com:8443', 'https://example.com/', false],
  ['example.com:8443', 'http://example.com:8080/', false],
  ['example.com:443', 'https://example.com/', true],
  ['example.com:443', 'http://example.com/', false],
  ['example.com:80', 'http://example.com/', true],
  ['example.com:80', 'https://example.com:80/', true],
  ['example.com', 'https://example.com:9999/', true],
  // IPv4 literals: exactly that address, never a suffix, in every form the URL parser reads
  ['192.0.2.1', 'http://192.0.2.1/', true],
  ['192.0.2.1', 'http://192.0.2.1:8080/x', true],
  ['192.0.2.1', 'http://192.0.2.10/', false],
  ['1.2.3.4', 'http://4.1.2.3.4.example/', false],
  ['1.2.3.4', 'http://x.1.2.3.4.nip.io/', false],
  ['127.0.0.1', 'http://2130706433/', true],
  ['127.0.0.1', 'http://0x7f.1/', true],
  ['127.0.0.1', 'http://0177.0.0.1/', true],
  ['2130706433', 'http://127.0.0.1/', true],
  ['0x7f.0.0.1', 'http://127.1/', true],
  ['192.0.2.1', 'http://[::ffff:192.0.2.1]/', true],
  ['192.0.2.1:8080', 'http://192.0.2.1:8080/', true],
  ['192.0.2.1:8080', 'http://192.0.2.1/', false],
  // IPv6 literals: bare or bracketed, any spelling of the same address
  ['2001:db8::1', 'http://[2001:db8::1]/', true],
  ['[2001:db8::1]', 'http://[2001:0db8:0:0:0:0:0:1]/', true],
  ['2001:DB8:0::1', 'http://[2001:db8::1]/', true],
  ['2001:db8::1', 'http://[2001:db8::2]/', false],
  ['[2001:db8::1]:8443', 'https://[2001:db8::1]:8443/', true],
  ['[2001:db8::1]:8443', 'https://[2001:db8::1]/', false],
  // an address entry never matches a name, a name entry never matches an address
  ['192.0.2.1', 'http://host.test/', false],
  ['localhost', 'http://127.0.0.1/', false],
  // CIDR ranges: IP-literal hosts inside, never names
  ['192.0.2.0/24', 'http://192.0.2.77/', true],
  ['192.0.2.0/24', 'http://192.0.3.1/', false],
  ['192.0.2.9/24', 'http://192.0.2.200/', true],
  ['127.0.0.0/8', 'http://2130706433/', true],
  ['127.0.0.0/8', 'http://localhost/', false],
  ['10.0.0.0/8', 'http://[::ffff:10.1.2.3]/', true],
  ['2001:db8::/32', 'http://[2001:db8:ffff::1]/', true],
  ['2001:db8::/32', 'http://[2001:db9::1]/', false],
  ['[2001:db8::]/32', 'http://[2001:db8::5]/', true],
  ['2001:db8::/32', 'http://192.0.2.1/', false],
  ['::ffff:0:0/96', 'http://192.0.2.1/', true],
  ['0.0.0.0/0', 'http://203.0.113.5/', true],
  ['0.0.0.0/0', 'http://[2001:db8::1]/', false],
  // path prefixes: segment-wise, case-insensitive, after the URL parser's normalisation
  ['example.com/blog', 'https://example.com/blog', true],
  ['example.com/blog', 'https://example.com/blog/', true],
  ['example.com/blog', 'https://www.example.com/blog/post?x=1', true],
  ['example.com/blog', 'https://example.com/blogger', false],
  ['example.com/blog', 'https://example.com/', false],
  ['example.com/blog/', 'https://example.com/blog/x', true],
  ['example.com/Blog', 'https://example.com/BLOG/x', true],
  ['example.com/blog', 'https://example.com/bl%6Fg/x', true],
  ['example.com/blog', 'https://example.com/x/../blog/y', true],
  ['example.com/', 'https://example.com/anything', true],
  ['example.com:8443/api', 'https://example.com:8443/api/v1', true],
  ['example.com:8443/api', 'https://example.com/api/v1', false],
  ['192.0.2.1/status', 'http://192.0.2.1/status/ok', true],
  ['[2001:db8::1]/status', 'http://[2001:db8::1]/other', false],
  // URLs that are not http(s) or do not parse are on no entry
  ['example.com', 'ftp://example.com/', false],
  ['example.com', 'not a url', false],
  ['example.com', 'mailto:someone@example.com', false],
]

// Entries that are not an accepted form, and what the refusal says.
const REFUSED: [entry: unknown, reason: RegExp][] = [
  ['', /it is empty/],
  ['   ', /it is empty/],
  ['exa mple.com', /holds a space/],
  ['*example.com', /"\*" may only stand as the whole first label/],
  ['a.*.com', /"\*" may only stand as the whole first label/],
  ['*', /"\*" may only stand as the whole first label/],
  ['**.example.com', /"\*" may only stand as the whole first label/],
  ['*.', /names no host/],
  ['.', /names no host/],
  ['https://example.com/', /it is a URL; write the host without the scheme/],
  ['https://user:pw@example.com/', /it is a URL/],
  ['user@example.com', /user name \(userinfo\)/],
  ['example.com?q=1', /query or a fragment/],
  ['example.com#top', /query or a fragment/],
  ['example..com', /is not a valid host name/],
  ['exa!mple.com', /is not a valid host name/],
  ['1.2.3.4.5', /is not a valid host name or IP address/],
  ['example.com:', /the port "" is not a number/],
  ['example.com:0', /the port "0" is not a number from 1 to 65535/],
  ['example.com:70000', /the port "70000"/],
  ['example.com:http', /the port "http"/],
  ['*.192.0.2.1', /a wildcard needs a domain name/],
  ['10.0.0.0/33', /prefix length \/33 is longer than 32 bits/],
  ['2001:db8::/129', /prefix length \/129 is longer than 128 bits/],
  ['10.0.0.0:80/8', /a CIDR range takes no port/],
  ['10.0.0.0/8/x', /CIDR prefix length, written alone/],
  ['[2001:db8::1', /no closing "\]"/],
  ['a\\b.example', /backslash/],
  [42, /it is not a string/],
]

// How entries are normalised: what `texts()` hands on to another list.
const NORMALISED: [entry: string, text: string][] = [
  ['Example.COM.', 'example.com'],
  ['.example.com', '*.example.com'],
  ['bücher.example', 'xn--bcher-kva.example'],
  ['example.com:8443/Blog/', 'example.com:8443/blog'],
  ['2130706433', '127.0.0.1'],
  ['[2001:0DB8::1]', '2001:db8::1'],
  ['2001:db8::1/status', '[2001:db8::1]/status'],
  ['192.0.2.9/24', '192.0.2.0/24'],
  ['::ffff:192.0.2.1', '192.0.2.1'],
  ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
  ['example.com/', 'example.com'],
]

describe('DomainList: one matcher for every domain list', () => {
  for (const [entry, url, on] of MATCHES) {
    it(`${JSON.stringify(entry)} ${on ? 'admits' : 'does not admit'} ${url}`, () => {
      const list = parseDomainList([entry], 'list')
      assert.equal(list.includes(url), on)
      assert.equal(list.match(url)?.written, on ? entry : undefined)
    })
  }

  for (const [entry, reason] of REFUSED) {
    it(`refuses ${JSON.stringify(entry)} when the list is built, naming it and the accepted forms`, () => {
      assert.throws(
        () => DomainList.parse(['ok.example', entry], 'blockedDomains'),
        (error: unknown) => {
          assert.ok(DomainListError.is(error), String(error))
          assert.equal(error.code, 'INVALID_ARGUMENT')
          assert.ok(error.message.startsWith(`blockedDomains[1] ${typeof entry === 'string' ? JSON.stringify(entry) : entry} is not a valid domain list entry: `), error.message)
          assert.match(error.message, reason)
          assert.match(error.message, /Accepted forms: example\.com \(that host and its subdomains\), \*\.example\.com or \.example\.com \(subdomains only\)/)
          assert.match(error.message, /docs\/security\.md, "Domain lists"/)
          assert.deepEqual(error.details, { list: 'blockedDomains', index: 1, entry: String(entry) })
          return true
        },
      )
    })
  }

  for (const [entry, text] of NORMALISED) {
    it(`normalises ${JSON.stringify(entry)} to ${text}, which parses back to the same entry`, () => {
      const [parsed] = parseDomainList([entry], 'list').entries
      assert.equal(parsed!.text, text)
      const again = parseDomainList([text], 'list').entries[0]!
      assert.deepEqual({ ...again, written: entry }, parsed)
    })
  }

  it('returns the first entry that matches, and the normalised entries without duplicates', () => {
    const list = parseDomainList(['docs.example.com/guide', 'example.com', 'EXAMPLE.com.'], 'list')
    assert.equal(list.match('https://docs.example.com/guide/a')?.written, 'docs.example.com/guide')
    assert.equal(list.match('https://docs.example.com/other')?.written, 'example.com')
    assert.deepEqual(list.texts(), ['docs.example.com/guide', 'example.com'])
    assert.equal(list.size, 3)
    assert.equal(parseDomainList([], 'list').match('https://example.com/'), undefined)
  })

  it('accepts a URL object as well as a string', () => {
    assert.equal(parseDomainList(['example.com'], 'list').includes(new URL('https://www.example.com/')), true)
  })

  it('says in words what an entry admits', () => {
    const describe = (entry: string) => describeDomainEntry(parseDomainList([entry], 'list').entries[0]!)
    assert.equal(describe('example.com'), 'example.com and its subdomains')
    assert.equal(describe('*.example.com'), 'the subdomains of example.com (not example.com itself)')
    assert.equal(describe('example.com:8443/blog'), 'example.com and its subdomains on port 8443 under the path /blog')
    assert.equal(describe('[2001:db8::1]'), 'the address 2001:db8::1')
    assert.equal(describe('192.0.2.0/24'), 'the addresses in 192.0.2.0/24')
  })

  // [allowlist, a request's list, the first entry of the request's list not covered (or undefined)]
  const COVERS: [string[], string[], string | undefined][] = [
    [['example.com'], ['example.com', 'docs.example.com', '*.example.com'], undefined],
    [['example.com'], ['notexample.com'], 'notexample.com'],
    [['example.com'], ['com'], 'com'],
    [['*.example.com'], ['docs.example.com', '*.example.com'], undefined],
    [['*.example.com'], ['example.com'], 'example.com'],
    [['docs.example.com/guide'], ['docs.example.com/guide/intro', 'docs.example.com/guide'], undefined],
    [['docs.example.com/guide'], ['docs.example.com'], 'docs.example.com'],
    [['docs.example.com/guide'], ['docs.example.com/guidebook'], 'docs.example.com/guidebook'],
    [['api.example.com:8443'], ['api.example.com:8443/v1'], undefined],
    [['api.example.com:8443'], ['api.example.com'], 'api.example.com'],
    [['example.com'], ['example.com:8443/v1'], undefined],
    [['192.0.2.0/24'], ['192.0.2.7', '192.0.2.128/25'], undefined],
    [['192.0.2.0/24'], ['192.0.0.0/16'], '192.0.0.0/16'],
    [['192.0.2.0/24'], ['example.com'], 'example.com'],
    [['example.com'], ['192.0.2.7'], '192.0.2.7'],
    [['[2001:db8::1]'], ['2001:db8::1'], undefined],
    [['a.test', 'b.test'], ['x.a.test', 'b.test', 'c.test'], 'c.test'],
  ]
  for (const [outer, inner, first] of COVERS) {
    it(`${JSON.stringify(outer)} ${first ? `does not cover ${first} of` : 'covers'} ${JSON.stringify(inner)}`, () => {
      const uncovered = parseDomainList(outer, 'allowlist').uncovered(parseDomainList(inner, 'request'))
      assert.equal(uncovered?.text, first && parseDomainList([first], 'x').entries[0]!.text)
    })
  }
})
