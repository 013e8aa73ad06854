// find and query of web_fetch end to end: the real dsh CLI in child
// processes (`dsh call web_fetch`, and `dsh run-code` whose code reads the
// structured matches) against a loopback page that counts its requests.
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { writePdf } from '../packages/web-fetch-http/tests/pdf-writer.js'
import { dsh, onlyJson, tempHome } from './helpers.js'

const PAGE = `<!doctype html><html><head><title>Limits guide</title></head><body><main><article>
<h1>Limits guide</h1>
<h2>Accounts</h2><p>Every account starts on the free plan, which most people keep for a long while.</p>
<h2>Requests</h2><p>Requests are counted per account and per minute, whichever client sends them.</p>
<h2>Quotas</h2><h3>Uploads</h3><p>The upload quota is 250 megabytes per day; a larger upload is refused with a typed error.</p>
</article></main></body></html>`

const MANUAL = writePdf(
  Array.from({ length: 6 }, (_, index) => ({
    runs: [
      { text: `Part ${index + 1}`, x: 72, y: 740, size: 18 },
      { text: `The body of part ${index + 1} names its limit:`, x: 72, y: 700 },
      { text: index === 4 ? 'uploads stop at 250 megabytes.' : 'there is none here.', x: 72, y: 686 },
    ],
  })),
  { outline: [{ title: 'Part 5, the upload limit', page: 5 }] },
)

describe('find and query through the dsh CLI', () => {
  let server: Server
  let origin: string
  let home: string
  let requests = 0

  before(async () => {
    server = createServer((request, response) => {
      requests++
      if (request.url === '/manual.pdf') return void response.writeHead(200, { 'content-type': 'application/pdf' }).end(MANUAL)
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    home = await tempHome()
  })
  after(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await rm(home, { recursive: true, force: true })
  })

  it('dsh call web_fetch with find and with query', async () => {
    const found = await dsh(['call', 'web_fetch', JSON.stringify({ url: `${origin}/guide`, find: 'UPLOAD quota' }), '--preset', 'standard', '--private-host', '127.0.0.1'], { home })
    assert.equal(found.code, 0, found.stderr)
    assert.match(found.stdout, /1 match of "UPLOAD quota" in the document's \d+ characters/)
    assert.match(found.stdout, /Match 1 at offset \d+ under Quotas › Uploads:\n…The ⟦upload quota⟧ is 250 megabytes per day/)
    const ranked = onlyJson(await dsh(['call', 'web_fetch', JSON.stringify({ url: `${origin}/guide`, query: 'upload quota per day' }), '--preset', 'standard', '--private-host', '127.0.0.1', '--json'], { home }))
    const query = ranked.structured.query
    assert.match(query.passages[0].text, /^The upload quota is 250 megabytes per day/)
    assert.deepEqual(query.outline.map((heading: any) => heading.title).slice(-3), ['Requests', 'Quotas', 'Uploads'])
    assert.match(ranked.content, /chosen by word overlap/)
  })

  it('run_code: tools.web_fetch({ url, find }) returns the matches, and a read at a match offset starts on it, from the one request', async () => {
    const before = requests
    const code = `const url = ${JSON.stringify(`${origin}/run-code`)}
const found = await tools.web_fetch({ url, find: 'per account' })
const match = found.find.matches[0]
const read = await tools.web_fetch({ url, offset: match.offset, max_chars: match.length })
return { total: found.find.total, headings: match.headings, read: read.text, text: found.text }`
    const run = onlyJson(await dsh(['run-code', '-', '--private-host', '127.0.0.1', '--json'], { home, input: code }))
    assert.equal(run.isError, false, run.content)
    assert.deepEqual(run.structured.result, { total: 1, headings: ['Requests'], read: 'per account', text: '' })
    assert.equal(requests - before, 1, 'the second call read the snapshot of the first')
  })

  it('dsh fetch --pages reads those pages of a PDF with its headings in markdown, and --find and --query search within them', async () => {
    const url = `${origin}/manual.pdf`
    const flags = ['--private-host', '127.0.0.1']
    const pages = await dsh(['fetch', url, '--pages', '4-5', ...flags], { home })
    assert.equal(pages.code, 0, pages.stderr)
    assert.match(pages.stdout, /read as PDF, 6 pages\)\. Characters \d+–\d+ of \d+ \(pages 4–5 of 6\); this is the end of pages 4–5\./)
    assert.match(pages.stdout, /--- page 4 ---\n# Part 4\n\nThe body of part 4 names its limit:\nthere is none here\.\n\n--- page 5 ---\n# Part 5/)
    assert.doesNotMatch(pages.stdout, /Part 3|Part 6|bookmarks/)
    const whole = await dsh(['fetch', url, ...flags], { home })
    assert.match(whole.stdout, /--- outline \(the PDF's bookmarks\) ---\n- Part 5, the upload limit \(page 5\)/)
    const found = onlyJson(await dsh(['fetch', url, '--pages', '5-6', '--find', '250 MEGABYTES', ...flags, '--json'], { home }))
    assert.equal(found.structured.find.total, 1)
    assert.deepEqual([found.structured.pages.first, found.structured.pages.last], [5, 5])
    assert.match(found.content, /Only pages 5–6 of 6 were searched\./)
    assert.equal(onlyJson(await dsh(['fetch', url, '--pages', '1-4', '--find', '250 megabytes', ...flags, '--json'], { home })).structured.find.total, 0)
    const ranked = onlyJson(await dsh(['fetch', url, '--query', 'upload megabytes limit', ...flags, '--json'], { home }))
    assert.match(ranked.structured.query.passages[0].text, /250 megabytes/)
    const wrong = await dsh(['fetch', url, '--pages', '7', ...flags], { home })
    assert.notEqual(wrong.code, 0)
    assert.match(wrong.stdout + wrong.stderr, /the document has 6 pages; ask for pages from 1 to 6/)
  })
})
