// find and query of web_fetch through the real HTTP fetch provider on a
// loopback page: every answer comes from the one snapshot the first call
// made (the server counts its requests), and its offsets are those paging uses.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import { session, tools } from '../../../tests/support/host-services.js'
import * as toolWeb from 'dsh-tool-web'
import * as web from 'dsh-web'
import * as fetchHttp from 'dsh-web-fetch-http'
import { fenced } from './helpers.js'

const FILLER = (topic: string) => `<p>This paragraph talks about ${topic} at some length, so that the section has a body of ordinary prose around it.</p>`

/** A guide whose answer (the default connection timeout) is in its third section, the other two sharing only some of the words. */
const GUIDE = `<!doctype html><html><head><title>Server guide</title></head><body><main><article>
<h1>Server guide</h1>
<p>An introduction to the server, which this guide explains from the start.</p>
<h2>Installing</h2>
${FILLER('installing the package')}
<p>The Café<br>mirror hosts the packages. The default mirror is chosen by the installer.</p>
<h2>Connections</h2>
${FILLER('connections and sockets')}
<p>Each connection is kept open for reuse by the pool.</p>
<h2>Configuring</h2>
<h3>Timeouts</h3>
<p>The default connection timeout is 30 seconds; the timeout_ms setting raises or lowers that timeout.</p>
<p>Another CAFÉ, a café and a cafe without its accent.</p>
</article></main></body></html>`

/** One phrase 120 times, each under a heading of its own number. */
const MANY = `<!doctype html><html><head><title>Many</title></head><body><main><article><h1>Many</h1>${Array.from({ length: 120 }, (_, index) => `<h2>Part ${index}</h2><p>Item ${index} mentions the needle phrase once, among other words.</p>`).join('\n')}</article></main></body></html>`

describe('web_fetch find and query over one snapshot', () => {
  let server: Server
  let base: string
  let home: string
  let ctx: Context
  const hits = new Map<string, number>()

  before(async () => {
    server = createServer((request, response) => {
      hits.set(request.url!, (hits.get(request.url!) ?? 0) + 1)
      const body = request.url?.startsWith('/guide') ? GUIDE : request.url === '/many' ? MANY : undefined
      if (request.url === '/gone') return void response.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><p>This page is gone, and the timeout page with it.</p></body></html>')
      if (request.url === '/sign-in') {
        return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Sign in</title></head><body><form action="/login" method="post"><h1>Sign in to continue</h1><p>You must sign in to read the secret timeout page.</p><input type="password" name="password"><button>Sign in</button></form></body></html>')
      }
      if (!body) return void response.writeHead(404).end()
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    home = await mkdtemp(join(tmpdir(), 'dsh-tool-web-find-'))
    ctx = new Context()
    ctx.plugin(session, { home })
    ctx.plugin(tools, { mode: 'native' })
    ctx.plugin(web, { fetchProvider: 'http' })
    ctx.plugin(fetchHttp, { privateHosts: ['127.0.0.1'] })
    ctx.plugin(toolWeb, { fetch: true, search: false, fetchMaxChars: 4_000 })
    await ctx.start()
    await ctx.lifecycle.flush()
  })

  after(async () => {
    await ctx?.stop()
    await new Promise((resolve) => server?.close(resolve))
    await rm(home, { recursive: true, force: true })
  })

  it('find: every match in page order, case and spacing ignored, accents kept, with heading paths; a read at a match offset starts on it, and no call asks the site again', async () => {
    const url = `${base}/guide-find`
    const outcome = await ctx.tools.invoke('web_fetch', { url, find: 'CAFÉ mirror' })
    assert.equal(outcome.isError, false, outcome.content)
    const found = (outcome.structured as any).find
    assert.equal(found.total, 1)
    assert.equal(found.matches[0].text, 'Café  \nmirror', 'the match as the page has it, its line break and all')
    assert.deepEqual(found.matches[0].headings, ['Installing'])

    const cafe = await ctx.tools.invoke('web_fetch', { url, find: 'café' })
    const matches = (cafe.structured as any).find.matches
    assert.deepEqual(matches.map((match: any) => match.text), ['Café', 'CAFÉ', 'café'], 'the unaccented cafe is not a match')
    assert.deepEqual(matches.map((match: any) => match.headings), [['Installing'], ['Configuring', 'Timeouts'], ['Configuring', 'Timeouts']])
    const offsets = matches.map((match: any) => match.offset)
    assert.deepEqual(offsets, [...offsets].sort((a, b) => a - b), 'in page order')
    assert.equal((cafe.structured as any).text, '')
    assert.match(cafe.content.split('\n')[0], /^"Server guide" — http:\/\/127\.0\.0\.1:\d+\/guide-find \(HTTP 200, text\/html, markdown\)\. 3 matches of "café" in the document's \d+ characters \(case, spacing and inline markup ignored, accents kept\), in page order\. Read the page from a match/)
    // The matches are page text: inside the fence, each with its offset and path.
    const inside = fenced(cafe.content)
    assert.ok(inside.includes(`Match 2 at offset ${offsets[1]} under Configuring › Timeouts:\n…Another ⟦CAFÉ⟧, a café and a cafe without its accent.`), inside)

    for (const match of matches) {
      const read = await ctx.tools.invoke('web_fetch', { url, offset: match.offset, max_chars: match.length })
      assert.equal((read.structured as any).text, match.text)
    }
    assert.equal(hits.get('/guide-find'), 1, 'one request for the page, whatever was asked of it')
  })

  it('find: a match count beyond the cap is said with the total, and the next call from nextOffset shows the rest', async () => {
    const url = `${base}/many`
    const first = await ctx.tools.invoke('web_fetch', { url, find: 'needle phrase' })
    const found = (first.structured as any).find
    assert.equal(found.total, 120)
    assert.ok(found.matches.length < 120 && found.matches.length > 0)
    assert.ok(found.nextOffset > found.matches.at(-1).offset)
    assert.equal(((await ctx.tools.invoke('web_fetch', { url, offset: found.nextOffset, max_chars: 13 })).structured as any).text, 'needle phrase', 'the first match not shown')
    assert.match(first.content.split('\n')[0], new RegExp(`120 matches of "needle phrase" .* the first ${found.matches.length} are shown: call web_fetch again with the same url and find and offset ${found.nextOffset} for the rest`))
    assert.deepEqual(found.matches[3].headings, ['Part 3'])
    const seen: number[] = found.matches.map((match: any) => match.offset)
    let next = found.nextOffset
    while (next !== undefined) {
      const more = (await ctx.tools.invoke('web_fetch', { url, find: 'needle phrase', offset: next })).structured as any
      assert.equal(more.find.from, next)
      assert.equal(more.find.total, 120 - seen.length, 'the total counts from the offset on')
      seen.push(...more.find.matches.map((match: any) => match.offset))
      next = more.find.nextOffset
    }
    assert.equal(seen.length, 120)
    assert.equal(new Set(seen).size, 120)
    assert.equal(hits.get('/many'), 1)
  })

  it('find: no match is an answer, not an error, and has no fence', async () => {
    const outcome = await ctx.tools.invoke('web_fetch', { url: `${base}/guide-none`, find: 'not on this page' })
    assert.equal(outcome.isError, false)
    assert.deepEqual((outcome.structured as any).find.matches, [])
    assert.equal((outcome.structured as any).find.total, 0)
    assert.match(outcome.content, /No match of "not on this page" in the document's \d+ characters/)
    assert.ok(!outcome.content.includes('<untrusted-content'))
  })

  it('query: BM25 puts the third section first, passages within max_chars each read back at its offset, the outline, and the word-overlap statement', async () => {
    const url = `${base}/guide-query`
    const outcome = await ctx.tools.invoke('web_fetch', { url, query: 'default connection timeout', max_chars: 600 })
    assert.equal(outcome.isError, false, outcome.content)
    const query = (outcome.structured as any).query
    assert.deepEqual(query.terms, ['default', 'connection', 'timeout'])
    assert.match(query.passages[0].text, /^The default connection timeout is 30 seconds/)
    assert.deepEqual(query.passages[0].headings, ['Configuring', 'Timeouts'])
    const scores = query.passages.map((passage: any) => passage.score)
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a), 'rank order')
    assert.ok(query.passages.length > 1, 'the other sections share some of the words')
    assert.ok(query.passages.reduce((sum: number, passage: any) => sum + passage.text.length, 0) <= 600)
    assert.match(query.method, /word overlap .* not by understanding/)
    assert.match(outcome.content.split('\n')[0], /Passages for "default connection timeout": \d+ shown \(\d+ characters\), best first; .* not by understanding/)
    assert.deepEqual(query.outline.map((heading: any) => [heading.level, heading.title]), [[2, 'Installing'], [2, 'Connections'], [2, 'Configuring'], [3, 'Timeouts']])
    assert.equal(query.outlineTotal, 4)
    assert.ok(fenced(outcome.content).includes('Outline of the page (4 headings):\n  Installing (offset'))

    for (const passage of query.passages) {
      const read = await ctx.tools.invoke('web_fetch', { url, offset: passage.offset, max_chars: passage.text.length })
      assert.equal((read.structured as any).text, passage.text)
    }
    const heading = query.outline[3]
    const atHeading = await ctx.tools.invoke('web_fetch', { url, offset: heading.offset, max_chars: 12 })
    assert.equal((atHeading.structured as any).text, '### Timeouts')
    assert.equal(hits.get('/guide-query'), 1)
  })

  it('query: a first passage longer than max_chars is cut and says where it goes on', async () => {
    const outcome = await ctx.tools.invoke('web_fetch', { url: `${base}/guide-query`, query: 'default connection timeout', max_chars: 40 })
    const [passage, ...rest] = (outcome.structured as any).query.passages
    assert.deepEqual(rest, [])
    assert.equal(passage.cut, true)
    assert.equal(passage.text.length, 40)
    assert.ok(fenced(outcome.content).includes(`cut at max_chars, it goes on at offset ${passage.offset + 40}`))
  })

  it('refuses bad find and query before the site is asked, each with what to do', async () => {
    const url = `${base}/guide-refused`
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ url, find: 'x'.repeat(web.FIND_MAX_CHARS + 1) }, /find/],
      [{ url, query: 'x'.repeat(web.QUERY_MAX_CHARS + 1) }, /query/],
      [{ url, find: '   ' }, /find must be a non-empty string/],
      [{ url, find: 'a', query: 'b' }, /find and query cannot be used together/],
      [{ url, query: 'timeout', offset: 10 }, /query ranks passages of the whole page, so it takes no offset/],
      [{ url, query: '?!' }, /has no words/],
    ]
    for (const [input, message] of refusals) {
      const outcome = await ctx.tools.invoke('web_fetch', input)
      assert.equal(outcome.error?.code, 'INVALID_ARGUMENT', JSON.stringify(input))
      assert.match(outcome.content, message, JSON.stringify(input))
    }
    assert.equal(hits.get('/guide-refused'), undefined)
    const past = await ctx.tools.invoke('web_fetch', { url, find: 'café', offset: 1_000_000 })
    assert.equal(past.error?.code, 'INVALID_ARGUMENT')
    assert.match(past.content, /offset 1000000 is past the end of the document/)
  })

  it('a page that failed is the page\'s error; a wall\'s matches are withheld like its text', async () => {
    const gone = await ctx.tools.invoke('web_fetch', { url: `${base}/gone`, find: 'timeout' })
    assert.equal(gone.error?.code, 'WEB_HTTP_STATUS')
    assert.equal((gone.structured as any).find.total, 1, 'the error page is still searched, and marked as one')
    assert.match(gone.content, /this is its error page, not the content you asked for/)
    const walled = await ctx.tools.invoke('web_fetch', { url: `${base}/sign-in`, find: 'secret timeout' })
    assert.equal(walled.error?.code, 'WEB_PAGE_WALLED')
    assert.equal((walled.structured as any).find, undefined)
    assert.ok(!walled.content.includes('secret timeout page'))
  })

  it('format html: headings from h1 to h6 (the whole page keeps its h1); format text: no outline, and it says so', async () => {
    const html = (await ctx.tools.invoke('web_fetch', { url: `${base}/guide-formats`, format: 'html', extract: 'full', find: 'timeout_ms' })).structured as any
    assert.deepEqual(html.find.matches[0].headings, ['Server guide', 'Configuring', 'Timeouts'])
    const text = await ctx.tools.invoke('web_fetch', { url: `${base}/guide-formats`, format: 'text', query: 'timeout' })
    assert.deepEqual((text.structured as any).query.outline, [])
    assert.match(fenced(text.content), /Outline of the page: it has no headings \(plain text marks none/)
  })
})
