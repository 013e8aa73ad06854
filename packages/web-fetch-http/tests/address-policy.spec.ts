import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { AddressPolicy } from 'dsh-web-egress'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { fakeLookup, refusal, DIRECT } from './helpers.js'

describe('address policy: vet() never connects', () => {
  const lookup = fakeLookup({
    'public.test': ['93.184.216.34'],
    'private.test': ['10.0.0.5'],
    'mixed.test': ['93.184.216.34', '192.168.1.10'],
    'mapped.test': ['::ffff:169.254.169.254'],
    'v6.test': ['2606:4700::6810:84e5'],
    'loopback.test': ['127.0.0.1'],
  })
  const fetcher = createHttpFetcher({ env: DIRECT, lookup, privateHosts: ['loopback.test', '10.9.0.0/16', 'fd00::/64'] })

  it('returns the host and its checked addresses for a public name', async () => {
    assert.deepEqual(await fetcher.vet('https://public.test/a?b=1'), {
      url: 'https://public.test/a?b=1',
      host: 'public.test',
      addresses: [{ address: '93.184.216.34', family: 4 }],
    })
    assert.deepEqual((await fetcher.vet('http://v6.test/')).addresses, [{ address: '2606:4700::6810:84e5', family: 6 }])
  })

  const urlCases: [string, string, string?][] = [
    ['http://2130706433/', 'WEB_BLOCKED_ADDRESS', '127.0.0.0/8'],
    ['http://0x7f.1/', 'WEB_BLOCKED_ADDRESS', '127.0.0.0/8'],
    ['http://0177.0.0.1/', 'WEB_BLOCKED_ADDRESS', '127.0.0.0/8'],
    ['http://127.1/', 'WEB_BLOCKED_ADDRESS', '127.0.0.0/8'],
    ['http://[::ffff:127.0.0.1]/', 'WEB_BLOCKED_ADDRESS', '127.0.0.0/8'],
    ['http://[::ffff:a9fe:a9fe]/latest', 'WEB_BLOCKED_ADDRESS', '169.254.0.0/16'],
    ['http://[::1]:8080/', 'WEB_BLOCKED_ADDRESS', '::1/128'],
    ['http://[fe80::1]/', 'WEB_BLOCKED_ADDRESS', 'fe80::/10'],
    ['http://169.254.169.254/latest/meta-data/', 'WEB_BLOCKED_ADDRESS', '169.254.0.0/16'],
    ['http://0.0.0.0/', 'WEB_BLOCKED_ADDRESS', '0.0.0.0/8'],
    ['http://private.test/', 'WEB_BLOCKED_ADDRESS', '10.0.0.0/8'],
    ['http://mapped.test/', 'WEB_BLOCKED_ADDRESS', '169.254.0.0/16'],
    ['http://10.9.0.1.nip.io.test/', 'WEB_FETCH_FAILED'],
    ['ftp://public.test/file', 'WEB_BLOCKED_URL'],
    ['file:///etc/passwd', 'WEB_BLOCKED_URL'],
    ['javascript:alert(1)', 'WEB_BLOCKED_URL'],
    ['http://user:secret@public.test/', 'WEB_BLOCKED_URL'],
    ['http://user@public.test/', 'WEB_BLOCKED_URL'],
    ['not a url', 'WEB_INVALID_URL'],
    ['http://', 'WEB_INVALID_URL'],
    [`http://public.test/${'a'.repeat(9000)}`, 'WEB_INVALID_URL'],
  ]
  for (const [url, code, range] of urlCases) {
    it(`refuses ${url.slice(0, 60)} with ${code}`, async () => {
      const error = await refusal(fetcher.vet(url))
      assert.equal(error.code, code, error.message)
      if (range) assert.equal(error.details.range, range)
      assert.ok(!error.message.includes('secret'), 'never names a secret')
    })
  }

  it('refuses a name with one public and one private answer, naming the host and the range', async () => {
    const error = await refusal(fetcher.vet('https://mixed.test/'))
    assert.equal(error.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(error.details.range, '192.168.0.0/16')
    assert.match(error.message, /mixed\.test/)
    assert.match(error.message, /192\.168\.0\.0\/16/)
  })

  it('says an IPv6 destination matching no named entry is outside 2000::/3', async () => {
    const error = await refusal(fetcher.vet('http://[5f00::1]/'))
    assert.equal(error.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(
      error.message,
      'The destination [5f00::1] is outside 2000::/3 (IPv6 global unicast), where all public IPv6 addresses are allocated; it is not fetched. An operator who means to reach it trusts it with privateHosts on the fetch row (dsh: --private-host [5f00::1]).',
    )
    assert.doesNotMatch(error.message, /\bin 2000::\/3/)
    assert.equal(error.details.range, '2000::/3')
    assert.equal(error.details.outsideRange, true)
    assert.equal(error.details.address, '5f00::1')
  })

  it('says how an operator trusts a refused loopback host, and that trusting an address does not trust a name', async () => {
    const literal = await refusal(fetcher.vet('http://127.0.0.1:8080/'))
    assert.match(literal.message, /An operator who means to reach it trusts it with privateHosts on the fetch row \(dsh: --private-host 127\.0\.0\.1\)\.$/)
    const trustsAddress = createHttpFetcher({ env: DIRECT, privateHosts: ['127.0.0.1'] })
    try {
      const name = await refusal(trustsAddress.vet('http://localhost:8080/'))
      assert.equal(name.code, 'WEB_BLOCKED_ADDRESS')
      assert.match(name.message, /--private-host localhost\); privateHosts trusts exactly what it names, so trusting the address localhost resolves to does not trust localhost\./)
    } finally {
      await trustsAddress.close()
    }
  })

  it('names 255.255.255.255 as limited broadcast, not the reserved /4 around it', async () => {
    const error = await refusal(fetcher.vet('http://255.255.255.255/'))
    assert.equal(error.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(error.details.range, '255.255.255.255/32')
    assert.equal(error.message, 'The destination 255.255.255.255 is in 255.255.255.255/32, limited broadcast (RFC 919), which is not public; it is not fetched. An operator who means to reach it trusts it with privateHosts on the fetch row (dsh: --private-host 255.255.255.255).')
  })

  it('says an IPv6 destination carries a refused IPv4 address rather than lying in an IPv4 range', async () => {
    const literal = await refusal(fetcher.vet('http://[::ffff:127.0.0.1]/'))
    assert.equal(
      literal.message,
      'The destination [::ffff:7f00:1] carries the IPv4 address 127.0.0.1 (IPv4-mapped), which is in 127.0.0.0/8, loopback (RFC 1122), a range that is not public; it is not fetched. An operator who means to reach it trusts it with privateHosts on the fetch row (dsh: --private-host [::ffff:7f00:1]).',
    )
    assert.equal(literal.details.range, '127.0.0.0/8')
    assert.equal(literal.details.embeddedAddress, '127.0.0.1')
    const named = await refusal(fetcher.vet('http://mapped.test/'))
    assert.match(named.message, /^The destination mapped\.test \(resolves to ::ffff:169\.254\.169\.254\) carries the IPv4 address 169\.254\.169\.254 \(IPv4-mapped\), which is in 169\.254\.0\.0\/16/)
  })

  it('says when a name resolves to something that is not an IP address', async () => {
    const odd = createHttpFetcher({ env: DIRECT, lookup: (_hostname, _options, callback) => callback(null, [{ address: 'not-an-ip', family: 4 }]) })
    const error = await refusal(odd.vet('http://odd.test/'))
    assert.equal(error.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(error.message, 'The host odd.test resolved to "not-an-ip", which is not an IP address; it is not fetched.')
    assert.equal(error.details.range, undefined)
    await odd.close()
  })

  it('resolves a name once, with { all: true }', async () => {
    const calls: unknown[] = []
    const counting = createHttpFetcher({
    env: DIRECT,
      lookup: (hostname, options, callback) => {
        calls.push([hostname, options])
        callback(null, [{ address: '93.184.216.34', family: 4 }])
      },
    })
    await counting.vet('http://once.test/')
    assert.equal(calls.length, 1)
    assert.deepEqual((calls[0] as [string, { all: boolean }])[1].all, true)
    await counting.close()
  })

  it('privateHosts trusts exactly the names, addresses and ranges it lists', async () => {
    assert.equal((await fetcher.vet('http://loopback.test/')).host, 'loopback.test')
    assert.equal((await fetcher.vet('http://10.9.200.1/')).host, '10.9.200.1')
    assert.equal((await fetcher.vet('http://[fd00::5]/')).host, '[fd00::5]')
    // another address in the same private block, but outside the trusted range
    assert.equal((await refusal(fetcher.vet('http://10.10.0.1/'))).code, 'WEB_BLOCKED_ADDRESS')
    // another name for the trusted address is not trusted
    assert.equal((await refusal(fetcher.vet('http://127.0.0.1/'))).code, 'WEB_BLOCKED_ADDRESS')
    // a name that resolves into a trusted range is not trusted either
    const named = createHttpFetcher({ env: DIRECT, lookup: fakeLookup({ 'inside.test': ['10.9.0.7'] }), privateHosts: ['10.9.0.0/16'] })
    assert.equal((await refusal(named.vet('http://inside.test/'))).code, 'WEB_BLOCKED_ADDRESS')
    await named.close()
  })

  it('privateHosts matches as the domain lists do: an IPv4 range holds the IPv4-mapped IPv6 spelling of its addresses', async () => {
    // The same destination either way; before the one CIDR matcher, the fetcher's ipaddr.js ranges compared families and refused it.
    assert.equal((await fetcher.vet('http://[::ffff:10.9.0.7]/')).host, '[::ffff:a09:7]')
    assert.equal((await refusal(fetcher.vet('http://[::ffff:10.10.0.1]/'))).code, 'WEB_BLOCKED_ADDRESS')
  })

  it('refuses a privateHosts entry that is not a host, address or range', () => {
    assert.throws(() => createHttpFetcher({ env: DIRECT, privateHosts: ['10.0.0.0/99'] }), (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && /longer than 32 bits/.test(error.message))
  })

  it('applies allowed and blocked domain lists to the host and its subdomains', async () => {
    const lists = new AddressPolicy({ lookup, allowedDomains: ['public.test', 'v6.test'], blockedDomains: ['bad.public.test'] })
    assert.equal(lists.parse('https://www.public.test/').hostname, 'www.public.test')
    assert.throws(() => lists.parse('https://bad.public.test/x'), (error: unknown) => WebError.is(error) && error.code === 'WEB_BLOCKED_URL')
    assert.throws(() => lists.parse('https://notpublic.test/'), (error: unknown) => WebError.is(error) && error.code === 'WEB_BLOCKED_URL')
    // a request's own allowed list narrows the operator's
    assert.throws(() => lists.parse('https://v6.test/', ['public.test']), (error: unknown) => WebError.is(error) && error.code === 'WEB_BLOCKED_URL')
  })

  it('words domain list refusals as they were decided', () => {
    const lists = new AddressPolicy({ lookup, allowedDomains: ['public.test', 'Bücher.test'], blockedDomains: ['*.bad.public.test', 'old.public.test/Archive'] })
    const message = (input: string, allowed?: string[]) => {
      try {
        lists.parse(input, allowed)
      } catch (error) {
        assert.ok(WebError.is(error) && error.code === 'WEB_BLOCKED_URL')
        return error.message
      }
      assert.fail(`${input} should be refused`)
    }
    // the message names the entry as written and what it blocks
    assert.equal(message('https://www.bad.public.test/'), 'The host www.bad.public.test matches the blocked domain list entry *.bad.public.test, which blocks the subdomains of bad.public.test (not bad.public.test itself).')
    // *.bad.public.test is subdomains only: bad.public.test itself passes
    assert.equal(lists.parse('https://bad.public.test/').hostname, 'bad.public.test')
    assert.equal(message('https://old.public.test/archive/2019'), 'The host old.public.test matches the blocked domain list entry old.public.test/Archive, which blocks old.public.test and its subdomains under the path /archive.')
    assert.equal(lists.parse('https://old.public.test/archived').pathname, '/archived')
    assert.equal(message('https://other.test/'), 'The host other.test matches no entry of the allowed domain list (public.test, Bücher.test).')
    assert.equal(lists.parse('https://www.xn--bcher-kva.test/').hostname, 'www.xn--bcher-kva.test')
    // the request's own list is named as such, not as the operator's
    assert.equal(message('https://www.public.test/', ['docs.test']), "The host www.public.test matches no entry of this request's allowed domain list (docs.test).")
    // with a path or port in the list, the URL is named, not only the host
    assert.equal(message('https://www.public.test:8443/b?q=1', ['public.test:443']), "The URL https://www.public.test:8443/b matches no entry of this request's allowed domain list (public.test:443).")
    // present but empty, the request's list admits nothing
    assert.equal(message('https://www.public.test/', []), "The host www.public.test matches no entry of this request's allowed domain list (no entries).")
  })

  it('refuses a domain list entry that is not an accepted form: at start for the operator\'s lists, at the call for a request\'s', () => {
    for (const [key, entry] of [['allowedDomains', 'exa mple.com'], ['blockedDomains', '*example.com'], ['blockedDomains', 'https://user@example.com/']] as const) {
      assert.throws(
        () => createHttpFetcher({ env: DIRECT, [key]: ['ok.test', entry] }),
        (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && error.message.startsWith(`${key}[1] ${JSON.stringify(entry)} is not a valid domain list entry`) && /Accepted forms: example\.com/.test(error.message),
        entry,
      )
    }
    const lists = new AddressPolicy({ lookup })
    assert.throws(
      () => lists.parse('https://public.test/', ['public.test', 'a.*.test']),
      (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && error.message.startsWith('request.allowedDomains[1] "a.*.test" is not a valid domain list entry'),
    )
  })

  after(() => fetcher.close())
})
