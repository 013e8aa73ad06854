import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BoundedSeenUrls, originOf, provenanceKey, SEEN_URL_MAX_CHARS, urlsInText } from 'dsh-host'
import { USER_URLS_MAX } from '../src/seen-urls.js'

describe('provenanceKey: the form seen URLs are compared in', () => {
  // [written, key]: equal keys are the same URL to the gate; undefined is never seen.
  const cases: [string, string | undefined][] = [
    ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ['HTTPS://EXAMPLE.COM/a?b=1', 'https://example.com/a?b=1'],
    ['https://Example.Com./a', 'https://example.com/a'],
    ['https://example.com../a', 'https://example.com/a'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['http://example.com:8080/a', 'http://example.com:8080/a'],
    ['https://example.com:80/a', 'https://example.com:80/a'],
    ['https://example.com/a#section-2', 'https://example.com/a'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/x/../a', 'https://example.com/a'],
    // Path and query stay as written: case, order, encoding, a trailing slash.
    ['https://example.com/A', 'https://example.com/A'],
    ['https://example.com/a/', 'https://example.com/a/'],
    ['https://example.com/a?b=1&c=2', 'https://example.com/a?b=1&c=2'],
    ['https://example.com/a?c=2&b=1', 'https://example.com/a?c=2&b=1'],
    ['https://example.com/a?', 'https://example.com/a?'],
    ['https://user@example.com/a', 'https://user@example.com/a'],
    ['https://bücher.example/a', 'https://xn--bcher-kva.example/a'],
    ['ftp://example.com/a', undefined],
    ['javascript:alert(1)', undefined],
    ['not a url', undefined],
    ['https://./a', undefined],
    [`https://example.com/${'a'.repeat(SEEN_URL_MAX_CHARS)}`, undefined],
  ]
  for (const [written, key] of cases) {
    it(`${written.slice(0, 60)} -> ${key ?? 'never seen'}`, () => assert.equal(provenanceKey(written), key))
  }
})

describe('BoundedSeenUrls', () => {
  it('admits a URL seen, up to normalisation, and no URL that differs in path or query', () => {
    const seen = new BoundedSeenUrls()
    seen.add(['https://docs.example/guide?page=2#top'], 'search')
    assert.equal(seen.admits('HTTPS://DOCS.EXAMPLE.:443/guide?page=2'), 'exact')
    assert.equal(seen.admits('https://docs.example/guide?page=3'), undefined)
    assert.equal(seen.admits('https://docs.example/guide'), undefined)
    assert.equal(seen.admits('https://docs.example/other?page=2'), undefined)
    assert.equal(seen.admits('https://collector.example/?q=secret'), undefined)
  })

  it('with sameOrigin admits any URL of a seen origin, and only of one', () => {
    const seen = new BoundedSeenUrls()
    seen.add(['https://docs.example/guide'], 'link')
    assert.equal(seen.admits('https://docs.example/anything?q=1', { sameOrigin: true }), 'origin')
    assert.equal(seen.admits('http://docs.example/guide', { sameOrigin: true }), undefined, 'another scheme is another origin')
    assert.equal(seen.admits('https://docs.example:8443/guide', { sameOrigin: true }), undefined, 'another port is another origin')
    assert.equal(seen.admits('https://evil.docs.example/guide', { sameOrigin: true }), undefined)
  })

  it('past its bound drops the oldest, forgets their origins, and says so once', () => {
    const seen = new BoundedSeenUrls(3)
    seen.add(['https://a.example/1', 'https://b.example/2', 'https://c.example/3'], 'link')
    assert.equal(seen.takeDropNotice(), undefined)
    seen.add(['https://a.example/1'], 'link') // seen again: now the newest
    seen.add(['https://d.example/4'], 'link')
    assert.equal(seen.size, 3)
    assert.equal(seen.admits('https://b.example/2'), undefined, 'b was the oldest')
    assert.equal(seen.admits('https://b.example/x', { sameOrigin: true }), undefined, 'its origin went with it')
    assert.equal(seen.admits('https://a.example/1'), 'exact')
    assert.deepEqual(seen.takeDropNotice(), { max: 3, dropped: 1 })
    seen.add(['https://e.example/5', 'https://f.example/6'], 'link')
    assert.equal(seen.takeDropNotice(), undefined, 'said once')
    assert.equal(seen.admits('https://c.example/3'), undefined)
  })

  it('declares the URLs of a user message, or a list of URLs, refusing what is not one', () => {
    const seen = new BoundedSeenUrls()
    const fromText = seen.declareUserUrls('Please read https://docs.example/guide?v=2. Also (see https://en.wikipedia.org/wiki/Foo_(bar)), and ftp://x.example/')
    assert.deepEqual(fromText, { added: 2, refused: [], notes: [] })
    assert.equal(seen.admits('https://docs.example/guide?v=2'), 'exact')
    assert.equal(seen.admits('https://en.wikipedia.org/wiki/Foo_(bar)'), 'exact')
    const listed = seen.declareUserUrls(['https://b.example/', 'mailto:me@example.com'])
    assert.deepEqual(listed, { added: 1, refused: ['mailto:me@example.com'], notes: [] })
    const many = seen.declareUserUrls(Array.from({ length: USER_URLS_MAX + 2 }, (_, index) => `https://n.example/${index}`))
    assert.equal(many.added, USER_URLS_MAX)
    assert.deepEqual(many.notes, [`Only the first ${USER_URLS_MAX} of ${USER_URLS_MAX + 2} URLs were taken.`])
  })

  it('finds URLs in text up to a bound, without the punctuation that ends a sentence', () => {
    assert.deepEqual(urlsInText('go to <https://a.example/x>, then "https://b.example/y?z=1"; done: https://c.example/.'), ['https://a.example/x', 'https://b.example/y?z=1', 'https://c.example/'])
    assert.equal(urlsInText('https://a.example/ '.repeat(10), 3).length, 3)
  })

  it('names a refused URL by its origin only', () => {
    assert.equal(originOf('https://collector.example:8443/x/y?q=secret#f'), 'https://collector.example:8443')
    assert.equal(originOf('not a url'), '<unparseable url>')
  })
})
