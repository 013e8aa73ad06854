import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import * as web from 'dsh-web'
import { WebError } from 'dsh-web'
import * as fetchHttp from '../src/index.js'
import { ExtractPool } from '../../web-readers/src/workers/extract-pool.js'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { MAX_JSON_DEPTH } from '../../web-readers/src/convert/json-document.js'
import { ATOM_FEED, LATIN1_FEED, RSS_FEED } from './feed-fixtures.js'
import { type TestServer, refusal, signal, startServer } from './helpers.js'
import { writePdf } from './pdf-writer.js'

const REPORT = writePdf(
  [
    { lines: ['Quarterly report', 'Revenue rose (a little).'] },
    { rectangles: [[72, 72, 200, 100]] },
    { lines: ['Appendix: the numbers', 'Nothing more to say.'] },
  ],
  { title: 'The Loopback Report', author: 'Ada Author' },
)
const SCANNED = writePdf([{ rectangles: [[72, 72, 300, 400]] }, { rectangles: [[100, 100, 50, 50]] }])
const ENCRYPTED = writePdf([{ lines: ['Secret minutes'] }], { userPassword: 'hunter2' })
const LONG = writePdf(Array.from({ length: 12 }, (_, index) => ({ lines: Array.from({ length: 20 }, (_, line) => `Page ${index + 1} line ${line + 1} of the long document.`) })))
// 27 KB of PDF whose one content stream (two FlateDecode filters) inflates to 2 GB of white space.
const BOMB = writePdf([{ lines: ['Inflating page'], inflatesTo: 2 * 1024 ** 3 }])
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1200, 7)])

const ROUTES: Record<string, [type: string | undefined, body: string | Buffer]> = {
  '/report.pdf': ['application/pdf', REPORT],
  '/download': ['application/octet-stream', REPORT],
  '/untyped.pdf': [undefined, REPORT],
  '/scanned.pdf': ['application/pdf', SCANNED],
  '/encrypted.pdf': ['application/pdf', ENCRYPTED],
  '/broken.pdf': ['application/pdf', '%PDF-1.4\nthis is not the rest of a PDF\n'],
  '/long.pdf': ['application/pdf', LONG],
  '/bomb.pdf': ['application/pdf', BOMB],
  '/feed.rss': ['application/rss+xml; charset=utf-8', RSS_FEED],
  '/feed.atom': ['application/atom+xml', ATOM_FEED],
  '/feed.xml': ['text/xml', RSS_FEED],
  '/feed-untyped': [undefined, ATOM_FEED],
  '/latin1.xml': ['application/xml', LATIN1_FEED],
  '/empty-feed': ['application/rss+xml', '<rss version="2.0"><channel><title>Quiet</title></channel></rss>'],
  '/other.xml': ['application/xml', '<?xml version="1.0"?><config><a>1</a></config>'],
  '/data.json': ['application/json', '{"name":"dsh","tags":["a","b"],"nested":{"ok":true,"n":null}}'],
  '/ld.json': ['application/ld+json', '{"@type":"Thing"}'],
  '/not.json': ['application/json', '{"open": '],
  '/deep.json': ['application/json', `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`],
  '/notes.txt': ['text/plain; charset=utf-8', 'line one\n  line two, indented\n'],
  '/photo.png': ['image/png', PNG],
  '/clip.mp4': ['video/mp4', Buffer.alloc(3000, 1)],
  '/song.mp3': ['audio/mpeg', Buffer.alloc(2048, 1)],
  '/bundle.zip': ['application/zip', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0])],
  '/photo-download': ['application/octet-stream', PNG],
}

describe('documents that are not HTML, through the real fetcher on loopback', () => {
  let server: TestServer
  const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], timeoutMs: 60_000, extractTimeoutMs: 60_000 })
  const hurried = createHttpFetcher({ privateHosts: ['127.0.0.1'], timeoutMs: 60_000, extractTimeoutMs: 1 })

  before(async () => {
    server = await startServer((request, response) => {
      const route = ROUTES[request.url ?? '']
      if (!route) {
        response.writeHead(404, { 'content-type': 'text/plain' })
        response.end('no such fixture')
        return
      }
      const [type, body] = route
      const bytes = typeof body === 'string' ? Buffer.from(body) : body
      response.writeHead(200, { ...(type ? { 'content-type': type } : {}), 'content-length': String(bytes.length) })
      response.end(bytes)
    })
  })

  after(async () => {
    await fetcher.close()
    await hurried.close()
    await server.close()
  })

  const get = (path: string, extra: Record<string, unknown> = {}) => fetcher.fetch({ url: `${server.origin}${path}`, ...extra }, { signal: signal() })

  describe('PDF', () => {
    it('reads each page after a "--- page N ---" marker, in markdown and text alike, with title, author and page count', async () => {
      const markdown = await get('/report.pdf')
      const text = await get('/report.pdf', { format: 'text' })
      const expected = [
        '--- page 1 ---',
        'Quarterly report',
        'Revenue rose (a little).',
        '',
        '--- page 2 (no text layer: scanned or drawn) ---',
        '',
        '--- page 3 ---',
        'Appendix: the numbers',
        'Nothing more to say.',
      ].join('\n')
      assert.equal(markdown.text, expected)
      assert.equal(text.text, expected)
      assert.deepEqual(markdown.metadata, { sourceFormat: 'pdf', pageCount: 3, title: 'The Loopback Report', byline: 'Ada Author' })
      assert.equal(markdown.contentType, 'application/pdf')
      assert.match(markdown.provenance.extractor, /^pdfjs-dist@/)
      assert.ok(markdown.warnings.some((warning) => /1 of 3 pages have no text layer.*: 2;/.test(warning)), markdown.warnings.join('\n'))
    })

    it('pages a long PDF by offset like HTML: the parts join to the whole text', async () => {
      const whole = await get('/long.pdf', { maxChars: 100_000 })
      assert.equal(whole.metadata.pageCount, 12)
      assert.equal(whole.truncated, false)
      for (let page = 1; page <= 12; page++) assert.ok(whole.text.includes(`--- page ${page} ---\nPage ${page} line 1 of the long document.`))
      const parts: string[] = []
      let offset: number | undefined = 0
      while (offset !== undefined) {
        const part = await get('/long.pdf', { maxChars: 4000, offset })
        assert.equal(part.totalChars, whole.totalChars)
        parts.push(part.text)
        offset = part.nextOffset
      }
      assert.ok(parts.length > 1)
      assert.equal(parts.join(''), whole.text)
    })

    it('reads a PDF sent as application/octet-stream or with no type by its %PDF- header', async () => {
      for (const path of ['/download', '/untyped.pdf']) {
        const document = await get(path, { format: 'text' })
        assert.equal(document.metadata.sourceFormat, 'pdf', path)
        assert.match(document.text, /^--- page 1 ---\nQuarterly report/)
      }
    })

    it('reports a PDF with no text layer as WEB_NO_TEXT_CONTENT, naming its page count', async () => {
      const error = await refusal(get('/scanned.pdf'))
      assert.equal(error.code, 'WEB_NO_TEXT_CONTENT')
      assert.match(error.message, /has 2 pages and no text layer/)
      assert.equal(error.details.pageCount, 2)
    })

    it('reports an encrypted PDF and a damaged one as WEB_DOCUMENT_UNREADABLE, saying which', async () => {
      const encrypted = await refusal(get('/encrypted.pdf'))
      assert.equal(encrypted.code, 'WEB_DOCUMENT_UNREADABLE')
      assert.match(encrypted.message, /encrypted with a password/)
      assert.equal(encrypted.details.reason, 'encrypted')
      const broken = await refusal(get('/broken.pdf'))
      assert.equal(broken.code, 'WEB_DOCUMENT_UNREADABLE')
      assert.match(broken.message, /damaged/)
      assert.equal(broken.details.reason, 'damaged')
    })

    it('refuses a PDF that inflates past the document memory cap with WEB_DOCUMENT_TOO_COMPLEX (a small PDF drove the process past 1.3 GB), and reads the next PDF', async () => {
      assert.ok(BOMB.length < 64 * 1024, `the bomb is ${BOMB.length} bytes`)
      const error = await refusal(get('/bomb.pdf'))
      assert.equal(error.code, 'WEB_DOCUMENT_TOO_COMPLEX')
      assert.match(error.message, /needed more than the 512 MB of memory a document reader may use/)
      assert.match(error.message, /bomb\.pdf \(27 KB\)/)
      assert.equal(error.details.limit, 512)
      assert.ok(Number(error.details.reachedBytes) > 512 * 1024 * 1024, String(error.details.reachedBytes))
      const next = await get('/report.pdf', { format: 'text' })
      assert.match(next.text, /Quarterly report/)
    })

    it('takes documentMemoryMb from the fetch row: the plugin mounted with 192 refuses the bomb at 192 MB', async () => {
      const ctx = new Context()
      ctx.plugin(web, { fetchProvider: 'http' })
      ctx.plugin(fetchHttp, { privateHosts: ['127.0.0.1'], timeoutMs: 60_000, extractTimeoutMs: 60_000, documentMemoryMb: 192, documentProcesses: 1 })
      await ctx.start()
      await ctx.lifecycle.flush()
      try {
        const error = await refusal(ctx.web.fetch({ url: `${server.origin}/bomb.pdf` }, { signal: signal() }))
        assert.equal(error.code, 'WEB_DOCUMENT_TOO_COMPLEX')
        assert.match(error.message, /needed more than the 192 MB of memory a document reader may use/)
        assert.equal(error.details.limit, 192)
      } finally {
        await ctx.stop()
      }
    })

    it('reads PDFs in processes of their own, at most documentProcesses at once, each capped by documentMemoryMb', async () => {
      const pool = new ExtractPool({ size: 1, documentProcesses: 2, documentMemoryMb: 256 })
      try {
        const job = (bytes: Buffer) => pool.convert({ bytes: new Uint8Array(bytes), kind: 'pdf', url: 'https://x.test/a.pdf', format: 'text', extract: 'main' }, signal())
        const outcomes = await Promise.allSettled([job(BOMB), job(BOMB), job(BOMB), job(REPORT)])
        assert.deepEqual(
          outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 'read' : WebError.is(outcome.reason) ? outcome.reason.code : String(outcome.reason))),
          ['WEB_DOCUMENT_TOO_COMPLEX', 'WEB_DOCUMENT_TOO_COMPLEX', 'WEB_DOCUMENT_TOO_COMPLEX', 'read'],
        )
        assert.match((outcomes[0] as PromiseRejectedResult).reason.message, /more than the 256 MB/)
        assert.equal(pool.documents.mostAtOnce, 2, 'the other two waited their turn')
        assert.equal(pool.workerCount, 0, 'no PDF reached an extraction worker')
      } finally {
        await pool.close()
      }
    })

    it('runs the built document child beside the built bundle, as in production', async () => {
      const built = (await import(new URL('../../web-readers/dist/index.js', import.meta.url).href)) as { ExtractPool: typeof ExtractPool }
      const pool = new built.ExtractPool({ size: 1 })
      try {
        assert.equal(pool.documents.childSource.href, new URL('../../web-readers/dist/document-child.js', import.meta.url).href)
        const output = await pool.convert({ bytes: new Uint8Array(REPORT), kind: 'pdf', url: 'https://x.test/a.pdf', format: 'text', extract: 'main' }, signal())
        assert.match(output.text, /Quarterly report/)
        // a second PDF is read by the same process: it held little after the first
        await pool.convert({ bytes: new Uint8Array(REPORT), kind: 'pdf', url: 'https://x.test/b.pdf', format: 'text', extract: 'main' }, signal())
        assert.equal(pool.documents.started, 1)
      } finally {
        await pool.close()
      }
    })

    it("reads a PDF where pdf.js's optional native package cannot load (was: DOMMatrix is not defined), from the source and from the build", async () => {
      const built = (await import(new URL('../../web-readers/dist/index.js', import.meta.url).href)) as { ExtractPool: typeof ExtractPool }
      const refuse = fileURLToPath(new URL('./fixtures/no-native-canvas.cjs', import.meta.url))
      const options = process.env.NODE_OPTIONS
      // The document processes inherit the environment: each starts with @napi-rs/canvas refused.
      process.env.NODE_OPTIONS = `${options ?? ''} --require ${refuse}`.trim()
      try {
        for (const Pool of [ExtractPool, built.ExtractPool]) {
          const pool = new Pool({ size: 1 })
          try {
            const output = await pool.convert({ bytes: new Uint8Array(REPORT), kind: 'pdf', url: 'https://x.test/a.pdf', format: 'text', extract: 'main' }, signal())
            assert.match(output.text, /Quarterly report/, pool.documents.childSource.href)
          } finally {
            await pool.close()
          }
        }
      } finally {
        if (options === undefined) delete process.env.NODE_OPTIONS
        else process.env.NODE_OPTIONS = options
      }
    })

    it('runs under the same extraction deadline as HTML pages', async () => {
      const error = await refusal(hurried.fetch({ url: `${server.origin}/report.pdf` }, { signal: signal() }))
      assert.equal(error.code, 'WEB_TIMEOUT')
      assert.match(error.message, /took longer than 1 ms/)
    })
  })

  describe('feeds', () => {
    it('turns RSS into its items: title, link, date and summary, HTML summaries as text', async () => {
      const document = await get('/feed.rss')
      assert.equal(
        document.text,
        [
          '# Loopback News & Notes',
          '',
          'Everything that happens on 127.0.0.1',
          'https://news.test/',
          '',
          '## 1. First story',
          '',
          '- link: https://news.test/first',
          '- date: 2025-06-10T04:00:00.000Z',
          '',
          'The first summary.',
          '',
          'Second paragraph.',
          '',
          '## 2. Second <story>',
          '',
          '- link: https://news.test/second',
          '- date: 2025-06-11T08:30:00.000Z',
          '',
          'Only content:encoded here',
          '',
          '## 3. Relative link',
          '',
          `- link: ${server.origin}/third`,
        ].join('\n'),
      )
      assert.deepEqual(document.metadata, { sourceFormat: 'rss', itemCount: 3, title: 'Loopback News & Notes', excerpt: 'Everything that happens on 127.0.0.1' })
      assert.deepEqual(document.links.map((link) => link.url), ['https://news.test/first', 'https://news.test/second', `${server.origin}/third`])
      assert.equal(document.provenance.extractor, 'feed-rss')
    })

    it('turns Atom into its entries, taking the alternate link and the published date', async () => {
      const document = await get('/feed.atom', { format: 'text' })
      assert.equal(
        document.text,
        [
          'Atom Log',
          '',
          'Entries on loopback',
          'https://atom.test/',
          '',
          '1. Entry one',
          'link: https://atom.test/one',
          'date: 2025-06-12T08:00:00.000Z',
          '',
          'Summary & more',
          '',
          '2. Entry two',
          'link: https://atom.test/two',
          'date: 2025-06-14T00:00:00.000Z',
          '',
          'Inline xhtml body',
        ].join('\n'),
      )
      assert.equal(document.metadata.sourceFormat, 'atom')
      assert.equal(document.metadata.itemCount, 2)
    })

    it('reads a feed under a generic XML type or none, and in the encoding its XML declaration names', async () => {
      assert.equal((await get('/feed.xml')).metadata.sourceFormat, 'rss')
      assert.equal((await get('/feed-untyped')).metadata.sourceFormat, 'atom')
      const latin = await get('/latin1.xml', { format: 'text' })
      assert.equal(latin.text, 'Café\n\n1. Crème brûlée\nlink: https://latin.test/1')
    })

    it('says when a feed has no items, returns other XML as sent, and a feed as sent under format "html"', async () => {
      const empty = await get('/empty-feed')
      assert.equal(empty.metadata.itemCount, 0)
      assert.ok(empty.warnings.includes('The RSS feed has no items.'))
      const other = await get('/other.xml')
      assert.equal(other.text, '<?xml version="1.0"?><config><a>1</a></config>')
      assert.equal(other.metadata.sourceFormat, 'xml')
      const raw = await get('/feed.rss', { format: 'html' })
      assert.equal(raw.text, RSS_FEED)
      assert.equal(raw.metadata.itemCount, 3)
    })
  })

  describe('JSON and text', () => {
    it('pretty-prints JSON (and +json types), and returns it as sent under format "html"', async () => {
      const document = await get('/data.json')
      assert.equal(document.text, JSON.stringify({ name: 'dsh', tags: ['a', 'b'], nested: { ok: true, n: null } }, null, 2))
      assert.equal(document.metadata.sourceFormat, 'json')
      assert.equal((await get('/ld.json')).text, '{\n  "@type": "Thing"\n}')
      assert.equal((await get('/data.json', { format: 'html' })).text, ROUTES['/data.json']![1])
    })

    it('returns a body labelled JSON that does not parse as sent, saying why', async () => {
      const document = await get('/not.json')
      assert.equal(document.text, '{"open": ')
      assert.ok(document.warnings.some((warning) => /is not valid JSON/.test(warning)), document.warnings.join('\n'))
    })

    it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with WEB_FETCH_TOO_LARGE, naming the limit and the way out`, async () => {
      const error = await refusal(get('/deep.json'))
      assert.equal(error.code, 'WEB_FETCH_TOO_LARGE')
      assert.equal(error.details.limit, MAX_JSON_DEPTH)
      assert.match(error.message, /format "html"/)
    })

    it('passes plain text through as it is', async () => {
      const document = await get('/notes.txt', { format: 'text' })
      assert.equal(document.text, 'line one\n  line two, indented\n')
      assert.equal(document.metadata.sourceFormat, 'text')
    })
  })

  describe('images, audio, video and archives', () => {
    for (const [path, type, what, size] of [
      ['/photo.png', 'image/png', 'an image', '1,208 bytes (1.2 KB)'],
      ['/clip.mp4', 'video/mp4', 'video', '3,000 bytes (2.9 KB)'],
      ['/song.mp3', 'audio/mpeg', 'audio', '2,048 bytes (2.0 KB)'],
      ['/bundle.zip', 'application/zip', 'an archive', '8 bytes'],
    ] as const) {
      it(`refuses ${type} with WEB_UNSUPPORTED_CONTENT_TYPE naming the type and the size`, async () => {
        const error = await refusal(get(path))
        assert.equal(error.code, 'WEB_UNSUPPORTED_CONTENT_TYPE')
        assert.equal(error.details.contentType, type)
        assert.ok(error.message.includes(`is ${what} (${type}, ${size})`), error.message)
      })
    }

    it('refuses binary sent as application/octet-stream by what its bytes are, with their size', async () => {
      const error = await refusal(get('/photo-download'))
      assert.equal(error.code, 'WEB_UNSUPPORTED_CONTENT_TYPE')
      assert.ok(error.message.includes('is a PNG image (labelled application/octet-stream, found by its bytes, 1,208 bytes (1.2 KB))'), error.message)
      assert.equal(error.details.bytes, 1208)
    })
  })
})
