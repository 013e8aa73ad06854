import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import type { FetchFormat } from 'dsh-web'
import { convertBody } from '../../web-readers/src/convert/convert-body.js'
import { extractHtml } from '../../web-readers/src/html/extract-html.js'
import { htmlParser } from '../../web-readers/src/html/parse-html.js'
import { ExtractPool } from '../../web-readers/src/workers/extract-pool.js'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, fakeLookup, signal, startServer, DIRECT } from './helpers.js'

// Snapshots in fixtures/<page>.expected.*; UPDATE_SNAPSHOTS=1 rewrites them (review the diff).
const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url)
const SNAPSHOT_ORIGIN = 'https://news.example.com'
const PATH = '/news/2024/05/14/bridge?ref=home'

async function snapshot(name: string, actual: string, origin: string) {
  const normalised = actual.replaceAll(origin, SNAPSHOT_ORIGIN)
  if (process.env.UPDATE_SNAPSHOTS) await writeFile(fixture(name), normalised)
  assert.equal(normalised, await readFile(fixture(name), 'utf8'), `snapshot ${name}`)
}

describe('extraction snapshots, fetched end to end', () => {
  let server: TestServer
  let origin: string
  before(async () => {
    server = await startServer(async (request, response) => {
      const page = new URL(request.url!, 'http://x').searchParams.get('page')
      response.setHeader('content-type', 'text/html; charset=utf-8')
      response.end(await readFile(fixture(`${page}.html`)))
    })
    origin = `http://news.example.com:${server.port}`
  })
  after(async () => {
    await server.close()
    await fetcher.close()
  })
  const fetcher = createHttpFetcher({ env: DIRECT, lookup: fakeLookup({ 'news.example.com': ['127.0.0.1'] }), privateHosts: ['news.example.com'] })
  const fetchPage = (page: string, format: FetchFormat, extract: 'main' | 'full' = 'main') =>
    fetcher.fetch({ url: `${origin}${PATH}&page=${page}`, format, extract }, { signal: signal() })

  for (const page of ['page-news-article', 'page-docs-table', 'page-no-main']) {
    it(`${page}: markdown, text, metadata and links match the snapshot`, async () => {
      const markdown = await fetchPage(page, 'markdown')
      await snapshot(`${page}.expected.md`, `${markdown.text}\n`, origin)
      const text = await fetchPage(page, 'text')
      await snapshot(`${page}.expected.txt`, `${text.text}\n`, origin)
      const structured = { extractor: markdown.provenance.extractor, metadata: markdown.metadata, links: markdown.links, warnings: markdown.warnings }
      await snapshot(`${page}.expected.json`, `${JSON.stringify(structured, null, 2)}\n`, origin)
    })
  }

  it('keeps menus and footers out of main content, and hidden text out of everything', async () => {
    const main = await fetchPage('page-news-article', 'text')
    assert.doesNotMatch(main.text, /Related stories|All rights reserved|Subscribe|cookies|Share/)
    const full = await fetchPage('page-news-article', 'markdown', 'full')
    assert.match(full.text, /Related stories/)
    assert.doesNotMatch(full.text, /cookies|Share|analytics|font-family/)
    await snapshot('page-news-article.full.expected.md', `${full.text}\n`, origin)
  })

  it('returns cleaned HTML for format html, with absolute links', async () => {
    const html = await fetchPage('page-news-article', 'html')
    assert.match(html.text, /<a href="http:\/\/news\.example\.com:\d+\/news\/2023\/council-report">/)
    assert.doesNotMatch(html.text, /<script|<style/)
  })

  it('says so when it falls back to the whole page', async () => {
    const document = await fetchPage('page-no-main', 'markdown')
    assert.equal(document.provenance.extractor, 'parse5+full(fallback)')
    assert.match(document.warnings.join(' '), /No main content/)
    assert.doesNotMatch(document.text, /secret hidden text/)
  })
})

describe('links and metadata', () => {
  it('lists at most 50 distinct absolute http(s) links, resolved against the final URL', () => {
    const anchors = Array.from({ length: 80 }, (_, index) => `<li><a href="/page/${index % 60}">Page ${index % 60}</a></li>`).join('')
    const html = `<html><body><ul>${anchors}</ul><p><a href="javascript:alert(1)">script</a> <a href="mailto:a@b.test">mail</a></p></body></html>`
    const output = extractHtml({ html, url: 'https://site.test/dir/here', format: 'markdown', extract: 'full' })
    assert.equal(output.links.length, 50)
    assert.equal(new Set(output.links.map((link) => link.url)).size, 50)
    assert.deepEqual(output.links[0], { url: 'https://site.test/page/0', text: 'Page 0' })
    assert.ok(output.links.every((link) => link.url.startsWith('https://site.test/page/')))
    assert.doesNotMatch(output.text, /javascript:/)
  })
})

describe('a page readability reads a second time', () => {
  // The article's container has a class readability's first pass strips ("comment"), so the pass
  // finds too little text and readability starts again from the page as it was.
  const html =
    '<html><head><title>Escapes</title></head><body><div class="comment-area">' +
    '<p>Use the tag like this in a page, and the reader sees the code as written:</p>' +
    '<xmp><b>bold</b> & <i>italic</i></xmp>' +
    '<p>The listing above is shown as it is, with its angle brackets, by every browser, and copied from it as it is written in the source of the page.</p>' +
    '</div></body></html>'

  it('starts again from the tree parse5 built, not from a reparse of its serialization', () => {
    const output = extractHtml({ html, url: 'https://example.com/', format: 'text', extract: 'main' })
    assert.match(output.extractor, /^readability/)
    // A serialization escapes the listing's text and linkedom's parser then reads the escapes as text.
    assert.equal(
      output.text,
      'Use the tag like this in a page, and the reader sees the code as written:\n\n<b>bold</b> & <i>italic</i>\n\n' +
        'The listing above is shown as it is, with its angle brackets, by every browser, and copied from it as it is written in the source of the page.',
    )
  })
})

describe('JSON-LD metadata', () => {
  it('keeps JSON-LD scripts for readability while dropping every other script', () => {
    const ld = JSON.stringify({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Headline from JSON-LD', author: { '@type': 'Person', name: 'Ada Writer' }, datePublished: '2023-02-01T10:00:00Z' })
    const paragraphs = '<p>This paragraph is a reasonably long sentence of article text, repeated to look like an article body.</p>'.repeat(8)
    const html = `<html><head><script type="application/ld+json">${ld}</script><script>var secret = "do not show"</script></head><body><article>${paragraphs}</article></body></html>`
    const output = extractHtml({ html, url: 'https://site.test/a', format: 'text', extract: 'main' })
    assert.equal(output.metadata.byline, 'Ada Writer')
    assert.equal(output.metadata.publishedTime, '2023-02-01T10:00:00Z')
    assert.doesNotMatch(output.text, /secret|NewsArticle/)
  })
})

describe('the tree', () => {
  const body = (html: string) => htmlParser.parse(html, 'https://site.test/').body!.innerHTML

  it('has no white space between block tags, and keeps it inside text, between inline elements and in pre', () => {
    const html = '<div>\n  <p>One <b>bold</b> <i>word</i></p>\n  <p>Two</p>\n</div>\n<pre>a\n  b</pre> <span>x</span>\n<div title="a>b">  <p>c</p> </div>'
    assert.equal(body(html), '<div><p>One <b>bold</b> <i>word</i></p><p>Two</p></div>\n<pre>a\n  b</pre> <span>x</span>\n<div title="a>b"><p>c</p></div>')
  })

  it('leaves out comments, styles, template contents, svg and scripts, keeping JSON-LD', () => {
    const html = '<p>a</p><!-- <script>x</script> --><style>p{}</style><SCRIPT src="x.js"></SCRIPT><script type="application/ld+json">{"a":1}</script><svg><script>y</script><text>z</text></svg><template><p>t</p></template><p>b</p>'
    assert.equal(body(html), '<p>a</p><script type="application/ld+json">{"a":1}</script><template></template><p>b</p>')
  })
})

describe('body to text in the worker', () => {
  it('hashes and decodes the bytes, sniffs the kind, and extracts HTML', () => {
    const bytes = Buffer.from('<!doctype html><html><head><meta charset="windows-1252"><title>T</title></head><body><p>caf\xe9 \x80</p></body></html>', 'latin1')
    const output = convertBody({ bytes, url: 'https://site.test/', format: 'text', extract: 'full' })
    assert.equal(output.kind, 'html')
    assert.equal(output.charset, 'windows-1252')
    assert.equal(output.text, 'café €')
    assert.equal(output.sha256, createHash('sha256').update(bytes).digest('hex'))
    const plain = convertBody({ bytes: Buffer.from('{"a": 1}'), contentType: 'application/json', kind: 'text', url: 'https://site.test/a.json', format: 'markdown', extract: 'main' })
    assert.deepEqual([plain.kind, plain.text, plain.extractor], ['text', '{"a": 1}', 'none (text)'])
  })

  it('moves the body to the worker without a copy, and still converts a body in a shared buffer', async () => {
    const pool = new ExtractPool({ size: 1 })
    try {
      const owned = new Uint8Array(Buffer.from('<p>' + 'moved '.repeat(2000) + '</p>'))
      const moved = await pool.convert({ bytes: owned, kind: 'html', url: 'https://x.test/', format: 'text', extract: 'full' }, signal())
      assert.equal(owned.byteLength, 0, 'the buffer was transferred, not copied')
      assert.match(moved.text, /^moved moved/)
      const shared = Buffer.from('<p>small</p>')
      assert.ok(shared.buffer.byteLength > shared.byteLength, 'a small Buffer lives in the shared pool')
      const copied = await pool.convert({ bytes: shared, kind: 'html', url: 'https://x.test/', format: 'text', extract: 'full' }, signal())
      assert.equal(copied.text, 'small')
      assert.equal(shared.toString(), '<p>small</p>', 'a buffer that is not all the body is left alone')
    } finally {
      await pool.close()
    }
  })
})

// The pool is driven with the job http-fetcher sends: body bytes to convert.
describe('extraction pool', () => {
  const page = (html: string, format: FetchFormat = 'text', extract: 'main' | 'full' = 'full') => ({
    bytes: new Uint8Array(Buffer.from(html)),
    contentType: 'text/html; charset=utf-8',
    kind: 'html' as const,
    url: 'https://x.test/',
    format,
    extract,
  })

  it('survives deeply nested and malformed HTML', async () => {
    const pool = new ExtractPool({ size: 1 })
    // 30,000 levels overflow the stack of recursive DOM code (turndown) unless flattened first
    const nested = `<html><body>${'<div>'.repeat(30_000)}deep text${'</div>'.repeat(10)}<p>after <b><i>bad</b></i> nesting<table><td>cell</span></p>`
    const output = await pool.convert(page(nested), signal())
    assert.match(output.text, /deep text/)
    const markdown = await pool.convert(page(nested, 'markdown', 'main'), signal())
    assert.match(markdown.text, /deep text/)
    assert.match(markdown.warnings.join(' '), /more than 256 levels deep/)
    await pool.close()
    assert.equal(pool.workerCount, 0)
  })

  it('fails a page that passes the parse deadline alone, with WEB_TIMEOUT, ends its worker and keeps working', async () => {
    const pool = new ExtractPool({ size: 1, parseTimeoutMs: 3_000 })
    try {
      // Started first, so that the deadline below is all parsing, not the worker's start.
      assert.equal((await pool.convert(page('<p>warm</p>'), signal())).text, 'warm')
      const [thread] = pool.threadIds
      // About 20 s of parsing and readability here; the deadline is 3 s.
      const slow = `<html><body>${'<p>word word word <a href="/x">link</a></p>'.repeat(100_000)}</body></html>`
      const started = performance.now()
      const timedOut = pool.convert(page(slow, 'markdown', 'main'), signal())
      const queued = pool.convert(page('<p>small page</p>'), signal())
      assert.deepEqual(pool.threadIds, [thread], 'the slow page went to the warm worker')
      await assert.rejects(timedOut, (error: unknown) => WebError.is(error) && error.code === 'WEB_TIMEOUT' && /took longer than 3000 ms/.test(error.message))
      assert.ok(performance.now() - started >= 2_900, 'it failed at the deadline, not before')
      assert.ok(!pool.threadIds.includes(thread!), 'the worker past its deadline was ended')
      assert.equal((await queued).text, 'small page', 'the page queued behind it was converted')
      assert.equal(pool.threadIds.length, 1)
      assert.notEqual(pool.threadIds[0], thread, 'by a new worker')
    } finally {
      await pool.close()
    }
  })

  it('recycles a worker after its quota of pages', async () => {
    const pool = new ExtractPool({ size: 1, recycleAfterJobs: 2 })
    try {
      await pool.convert(page('<p>one</p>'), signal())
      const [first] = pool.threadIds
      const two = pool.convert(page('<p>two</p>'), signal())
      assert.deepEqual(pool.threadIds, [first], 'the second page went to the same worker')
      assert.equal((await two).text, 'two')
      assert.equal(pool.threadIds.length, 1, 'the worker was ended after two pages and its replacement started at once')
      const [replacement] = pool.threadIds
      assert.notEqual(replacement, first)
      const third = await pool.convert(page('<p>three</p>'), signal())
      assert.equal(third.text, 'three')
      assert.deepEqual(pool.threadIds, [replacement], 'the third page went to the replacement')
    } finally {
      await pool.close()
    }
  })

  it('recycles a worker whose heap passed its limit after a page, and starts the replacement at once', async () => {
    // Every worker's heap holds more than 1 MB once its modules are loaded.
    const pool = new ExtractPool({ size: 1, recycleHeapMb: 1 })
    try {
      const one = pool.convert(page('<p>one</p>'), signal())
      const [first] = pool.threadIds
      assert.equal((await one).text, 'one')
      const [replacement] = pool.threadIds
      assert.equal(pool.threadIds.length, 1, 'a replacement is running')
      assert.notEqual(replacement, first)
      assert.equal((await pool.convert(page('<p>two</p>'), signal())).text, 'two')
      assert.equal(pool.threadIds.length, 1)
      assert.notEqual(pool.threadIds[0], replacement, 'the replacement was replaced in turn after its page')
    } finally {
      await pool.close()
    }
  })

  it('ends the work when the call is aborted, with WEB_ABORTED', async () => {
    const pool = new ExtractPool({ size: 1 })
    try {
      const controller = new AbortController()
      const big = `<html><body>${'<p>word word word</p>'.repeat(200_000)}</body></html>`
      const pending = pool.convert(page(big, 'markdown', 'main'), controller.signal)
      assert.equal(pool.threadIds.length, 1)
      controller.abort()
      await assert.rejects(pending, (error: unknown) => WebError.is(error) && error.code === 'WEB_ABORTED')
      assert.deepEqual(pool.threadIds, [], 'the worker was ended')
    } finally {
      await pool.close()
    }
  })
})
