// Pages of a PDF (issue 28, item 3): `pages` reads only the pages asked for,
// every part says which pages it holds, find and query stay within them, and
// offsets stay those of the whole document; the PDF's own bookmarks come
// first as its outline. Through the real fetcher and document processes,
// against PDFs the tests write, served on loopback.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, refusal, signal, startServer } from './helpers.js'
import { writePdf } from './pdf-writer.js'

const PAGE_COUNT = 8
const BOOK = writePdf(
  Array.from({ length: PAGE_COUNT }, (_, index) => ({
    lines: [`Chapter ${index + 1} of the handbook`, ...Array.from({ length: 12 }, (_, line) => `Line ${line + 1} of page ${index + 1}: the handbook goes on.`), index === 3 ? 'The retention period is ninety days.' : 'Nothing about retention here.'],
  })),
  {
    title: 'Handbook',
    outline: [
      { title: 'Getting started', page: 1, children: [{ title: 'Installing', page: 2 }] },
      { title: 'Records (retention)', page: 4 },
      { title: 'Appendix', page: 8 },
    ],
  },
)
const PLAIN = writePdf([{ lines: ['One page, no bookmarks.'] }, { lines: ['A second page.'] }])

describe('pages of a PDF through the real fetcher on loopback', () => {
  let server: TestServer
  let requests = 0
  const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], timeoutMs: 60_000, extractTimeoutMs: 60_000 })

  before(async () => {
    server = await startServer((request, response) => {
      requests++
      const body = request.url === '/book.pdf' ? BOOK : request.url === '/plain.pdf' ? PLAIN : undefined
      if (!body) return void response.writeHead(404).end()
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(body.length) }).end(body)
    })
  })
  after(async () => {
    await fetcher.close()
    await server.close()
  })

  const get = (path: string, extra: Record<string, unknown> = {}) => fetcher.fetch({ url: `${server.origin}${path}`, format: 'text', ...extra }, { signal: signal() })

  it("puts the PDF's bookmarks first, indented by level, each with the page it leads to", async () => {
    const whole = await get('/book.pdf', { maxChars: 100_000 })
    assert.ok(
      whole.text.startsWith("--- outline (the PDF's bookmarks) ---\n- Getting started (page 1)\n  - Installing (page 2)\n- Records (retention) (page 4)\n- Appendix (page 8)\n\n--- page 1 ---\nChapter 1 of the handbook"),
      whole.text.slice(0, 300),
    )
    assert.deepEqual(whole.pages, { pageCount: PAGE_COUNT, first: 1, last: PAGE_COUNT })
    const plain = await get('/plain.pdf')
    assert.ok(plain.text.startsWith('--- page 1 ---\nOne page, no bookmarks.'), plain.text)
  })

  it('reads only the pages asked for, and the first character is the first page marker', async () => {
    const whole = await get('/book.pdf', { maxChars: 100_000 })
    const part = await get('/book.pdf', { pages: '3-5', maxChars: 100_000 })
    const start = whole.text.indexOf('--- page 3 ---')
    const end = whole.text.indexOf('\n\n--- page 6 ---')
    assert.equal(part.text, whole.text.slice(start, end))
    assert.equal(part.offset, start)
    assert.equal(part.totalChars, whole.totalChars)
    assert.equal(part.nextOffset, undefined)
    assert.deepEqual(part.pages, { pageCount: PAGE_COUNT, first: 3, last: 5, requested: { first: 3, last: 5, start, end } })
    const one = await get('/book.pdf', { pages: '8' })
    assert.ok(one.text.startsWith('--- page 8 ---') && one.text.endsWith('Nothing about retention here.'), one.text)
    assert.deepEqual([one.pages?.first, one.pages?.last], [8, 8])
  })

  it('pages within the range: each part says which pages it holds, the last ends at the range, and the parts join to it', async () => {
    const whole = await get('/book.pdf', { pages: '2-4', maxChars: 100_000 })
    const parts: string[] = []
    let offset = 0
    const held: string[] = []
    for (let calls = 0; calls < 50; calls++) {
      const part = await get('/book.pdf', { pages: '2-4', maxChars: 500, offset })
      parts.push(part.text)
      held.push(`${part.pages?.first}-${part.pages?.last}`)
      assert.deepEqual(part.pages?.requested, whole.pages?.requested)
      if (part.nextOffset === undefined) break
      offset = part.nextOffset
    }
    assert.equal(parts.join(''), whole.text)
    assert.ok(held.length > 3, held.join(' '))
    assert.equal(held[0], '2-2')
    assert.equal(held.at(-1), '4-4')
    assert.ok(held.includes('2-3') || held.includes('3-4'), `a part that spans two pages says both: ${held.join(' ')}`)
  })

  it('an offset read without pages lands on the same characters as with them', async () => {
    const part = await get('/book.pdf', { pages: '5-6', maxChars: 300 })
    const again = await get('/book.pdf', { offset: part.offset, maxChars: 300 })
    assert.equal(again.text, part.text)
  })

  it('finds within the pages only, and a match offset read back lands on it', async () => {
    const everywhere = await get('/book.pdf', { find: 'about retention' })
    assert.equal(everywhere.find?.total, PAGE_COUNT - 1)
    const within = await get('/book.pdf', { find: 'about retention', pages: '5-6' })
    assert.equal(within.find?.total, 2)
    assert.deepEqual(within.pages, { pageCount: PAGE_COUNT, first: 5, last: 6, requested: within.pages?.requested })
    const [match] = within.find!.matches
    const read = await get('/book.pdf', { offset: match!.offset, maxChars: match!.length })
    assert.equal(read.text.toLowerCase(), 'about retention')
    assert.equal((await get('/book.pdf', { find: 'retention period', pages: '1-3' })).find?.total, 0)
  })

  it('ranks passages of the pages asked for only', async () => {
    const anywhere = await get('/book.pdf', { query: 'retention period days' })
    assert.match(anywhere.query!.passages[0]!.text, /ninety days/)
    const elsewhere = await get('/book.pdf', { query: 'retention period days', pages: '6-8' })
    for (const passage of elsewhere.query!.passages) {
      assert.ok(passage.offset >= elsewhere.pages!.requested!.start && passage.offset < elsewhere.pages!.requested!.end, `passage at ${passage.offset} lies within pages 6-8`)
      assert.doesNotMatch(passage.text, /ninety/)
    }
  })

  it('reads to the last page when the range runs past it, and says so; a range that starts past it is refused naming the page count', async () => {
    const past = await get('/book.pdf', { pages: '7-20', maxChars: 100_000 })
    assert.deepEqual([past.pages?.requested?.first, past.pages?.requested?.last], [7, 8])
    assert.ok(past.warnings.some((warning) => /pages 7-20 were asked for; the document has 8 pages, so pages 7-8 are read/.test(warning)), past.warnings.join('\n'))
    const refused = await refusal(get('/book.pdf', { pages: '9-10' }))
    assert.equal(refused.code, 'INVALID_ARGUMENT')
    assert.match(refused.message, /the document has 8 pages; ask for pages from 1 to 8/)
  })

  it('refuses an offset outside the pages, and a range written wrong, before reading', async () => {
    const whole = await get('/book.pdf', { maxChars: 100_000 })
    const refused = await refusal(get('/book.pdf', { pages: '5', offset: 3 }))
    assert.match(refused.message, /offset 3 is outside page 5, which holds? characters/)
    assert.ok(whole.totalChars > 0)
    const before = requests
    for (const pages of ['0', '3-', 'a-b', '5-3', '1,3', '']) {
      const error = await refusal(get('/book.pdf', { pages }))
      assert.equal(error.code, 'INVALID_ARGUMENT', pages)
      assert.match(error.message, /pages/, pages)
    }
    assert.equal(requests, before, 'a bad range is refused before any request')
  })

  it('fetches the document once for every view of it', async () => {
    const before = requests
    await get('/book.pdf', { pages: '2' })
    await get('/book.pdf', { pages: '3', find: 'handbook' })
    await get('/book.pdf', { pages: '4', query: 'retention' })
    assert.equal(requests, before)
  })
})
