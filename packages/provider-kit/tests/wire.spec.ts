import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { checkDomainFilters, cleanDomains, describeDomainCheck, MAX_ANSWER_DEPTH, nestsDeeperThan, parseJsonBody, parseJsonEnvelope, parseJsonObject, sentDomainFilterReport } from '../src/wire.js'
import { WebError } from 'dsh-web'

describe('checkDomainFilters (dsh-web/provider-http)', () => {
  const sources = (...urls: string[]) => urls.map((url) => ({ url }))

  it('matches a domain and its subdomains, case-insensitive, never a lookalike', () => {
    const cases: Array<[string, string, boolean]> = [
      ['https://nodejs.org/x', 'nodejs.org', true],
      ['https://Docs.NodeJS.org/api', 'nodejs.org', true],
      ['https://nodejs.org./x', 'NODEJS.ORG.', true],
      ['http://a.b.nodejs.org:8080/', 'nodejs.org', true],
      ['https://notnodejs.org/', 'nodejs.org', false],
      ['https://nodejs.org.evil.example/', 'nodejs.org', false],
      ['https://example.com/blog/post', 'example.com/blog', true],
      ['https://example.com/blogroll', 'example.com/blog', false],
      ['https://bücher.example/', 'BÜCHER.example', true],
      ['ftp://nodejs.org/x', 'nodejs.org', false],
      ['not a url', 'nodejs.org', false],
    ]
    for (const [url, domain, expected] of cases) {
      const [check] = checkDomainFilters(sources(url), { allowedDomains: [domain] })
      assert.equal(check!.outside.length === 0, expected, `${url} on ${domain}`)
    }
  })

  it('refuses a list entry that is not an accepted form as INVALID_ARGUMENT, naming it, and sends entries normalised', () => {
    for (const entry of ['', 'https://example.com/', 'exa mple.com', 'a.*.com']) {
      assert.throws(
        () => checkDomainFilters(sources('https://example.com/'), { allowedDomains: ['ok.org', entry] }),
        (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && error.message.startsWith(`allowedDomains[1] ${JSON.stringify(entry)} is not a valid domain list entry`),
        entry,
      )
    }
    assert.deepEqual(cleanDomains([' NodeJS.org. ', 'bücher.example', 'nodejs.org']), ['nodejs.org', 'xn--bcher-kva.example'])
  })

  it('lists the sources outside each requested list, in order, without changing the sources', () => {
    const list = sources('https://nodejs.org/a', 'https://github.com/b', 'not a url', 'https://gist.github.com/c')
    const before = JSON.stringify(list)
    assert.deepEqual(checkDomainFilters(list, {}), [])
    assert.deepEqual(checkDomainFilters(list, { allowedDomains: [' nodejs.org ', 'NodeJS.org'] }), [
      { filter: 'allowed_domains', domains: ['nodejs.org'], checked: 4, outside: ['https://github.com/b', 'not a url', 'https://gist.github.com/c'] },
    ])
    const [blocked] = checkDomainFilters(list, { blockedDomains: ['github.com'] })
    assert.deepEqual(blocked, { filter: 'blocked_domains', domains: ['github.com'], checked: 4, outside: ['https://github.com/b', 'not a url', 'https://gist.github.com/c'] })
    assert.equal(describeDomainCheck(blocked!), '3 of 4 sources are on the blocked domains (github.com, an unparseable URL, gist.github.com)')
    assert.equal(JSON.stringify(list), before)
  })

  it('names at most three hosts in a note, then how many more', () => {
    const [check] = checkDomainFilters(sources('https://a.example/', 'https://b.example/', 'https://c.example/', 'https://d.example/', 'https://a.example/2', 'https://ok.org/'), {
      allowedDomains: ['ok.org'],
    })
    assert.equal(describeDomainCheck(check!), '5 of 6 sources are outside the allowed domains (a.example, b.example, c.example and 1 more)')
    assert.deepEqual(sentDomainFilterReport(check!, 'Vendor'), {
      filter: 'allowed_domains',
      honoured: false,
      note: 'sent to Vendor, but 5 of 6 sources are outside the allowed domains (a.example, b.example, c.example and 1 more)',
    })
  })
})

describe('parseJsonBody: answers nested MAX_ANSWER_DEPTH levels at most', () => {
  const nested = (levels: number) => '{"a":['.repeat(levels / 2) + ']}'.repeat(levels / 2)

  it('reads an answer at the limit and refuses one a level deeper, saying so', () => {
    assert.equal(MAX_ANSWER_DEPTH % 2, 0)
    assert.equal(parseJsonBody(nested(MAX_ANSWER_DEPTH)).ok, true)
    const deeper = parseJsonBody(`[${nested(MAX_ANSWER_DEPTH)}]`)
    assert.deepEqual(deeper, { ok: false, reason: `the body is nested more than ${MAX_ANSWER_DEPTH} levels deep` })
    assert.deepEqual(parseJsonEnvelope(`{"content":[${nested(MAX_ANSWER_DEPTH)}]}`, 'content').ok, false)
    assert.equal(parseJsonObject(`{"error":${nested(MAX_ANSWER_DEPTH)}}`), undefined)
    assert.deepEqual(parseJsonBody('not json'), { ok: false, reason: 'the body is not JSON' })
  })

  it('measures any depth without recursion', () => {
    const deep = JSON.parse(nested(400_000))
    assert.equal(nestsDeeperThan(deep, 399_999), true)
    assert.equal(nestsDeeperThan(deep, 400_000), false)
    assert.equal(nestsDeeperThan('text', 0), false)
    assert.equal(nestsDeeperThan({}, 0), true)
  })
})
