import assert from 'node:assert/strict'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { rm } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { ATOM_FEED } from '../packages/web-fetch-http/tests/feed-fixtures.js'
import { writePdf } from '../packages/web-fetch-http/tests/pdf-writer.js'
import { dsh, onlyJson, tempHome } from './helpers.js'

const PDF = writePdf(
  [
    { lines: ['Minutes of the loopback meeting', 'Present: everyone on 127.0.0.1.'] },
    { lines: ['Decision: fetch PDFs page by page.'] },
    { lines: ['Next meeting: when the tests pass.'] },
  ],
  { title: 'Loopback minutes', author: 'The Secretary' },
)
const SCANNED = writePdf([{ rectangles: [[50, 50, 500, 700]] }])
const ROUTES: Record<string, [string, string | Buffer]> = {
  '/minutes.pdf': ['application/pdf', PDF],
  '/scan.pdf': ['application/pdf', SCANNED],
  '/feed.atom': ['application/atom+xml', ATOM_FEED],
  '/photo.jpg': ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])],
}

describe('dsh fetch reads documents that are not HTML from a loopback server', () => {
  let home: string
  let server: Server
  let origin: string
  const fetch = (path: string, ...extra: string[]) => dsh(['fetch', `${origin}${path}`, '--private-host', '127.0.0.1', ...extra], { home })

  before(async () => {
    home = await tempHome()
    server = createServer((request, response) => {
      const route = ROUTES[request.url ?? '']
      if (!route) {
        response.writeHead(404, { 'content-type': 'text/plain' })
        response.end('not here')
        return
      }
      response.writeHead(200, { 'content-type': route[0], 'content-length': String(Buffer.byteLength(route[1])) })
      response.end(route[1])
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  after(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await rm(home, { recursive: true, force: true })
  })

  it('a PDF: the header says PDF and its pages, each page follows its marker inside the fence', async () => {
    const result = await fetch('/minutes.pdf')
    assert.equal(result.code, 0, result.stderr)
    const lines = result.stdout.split('\n')
    assert.match(lines[0]!, /^"Loopback minutes" — http:\/\/127\.0\.0\.1:\d+\/minutes\.pdf \(HTTP 200, application\/pdf, markdown; read as PDF, 3 pages\)\. Characters 0–\d+ of \d+ \(the whole document\)\.$/)
    const fenced = result.stdout.slice(result.stdout.indexOf('<untrusted-content'), result.stdout.indexOf('</untrusted-content'))
    assert.match(fenced, /--- page 1 ---\nMinutes of the loopback meeting\nPresent: everyone on 127\.0\.0\.1\.\n\n--- page 2 ---\nDecision: fetch PDFs page by page\.\n\n--- page 3 ---\nNext meeting: when the tests pass\./)
  })

  it('a PDF read on by offset: --json gives the metadata and the next offset, which starts where the first part stopped', async () => {
    const first = onlyJson(await fetch('/minutes.pdf', '--format', 'text', '--max-chars', '60', '--json'))
    assert.deepEqual(first.structured.metadata, { sourceFormat: 'pdf', pageCount: 3, title: 'Loopback minutes', byline: 'The Secretary' })
    assert.equal(first.structured.nextOffset, 60)
    const second = onlyJson(await fetch('/minutes.pdf', '--format', 'text', '--max-chars', '100000', '--offset', '60', '--json'))
    const whole = onlyJson(await fetch('/minutes.pdf', '--format', 'text', '--max-chars', '100000', '--json'))
    assert.equal(first.structured.text + second.structured.text, whole.structured.text)
  })

  it('an Atom feed: the header says how many items, and each item has its title, link, date and summary', async () => {
    const result = await fetch('/feed.atom')
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout.split('\n')[0]!, /^"Atom Log" — .*\(HTTP 200, application\/atom\+xml, markdown; read as Atom feed, 2 items\)\./)
    assert.match(result.stdout, /## 1\. Entry one\n\n- link: https:\/\/atom\.test\/one\n- date: 2025-06-12T08:00:00\.000Z\n\nSummary & more\n\n## 2\. Entry two/)
  })

  it('a 404 prints the page the server sent (fenced, on stdout) and says on stderr that the fetch failed with its status', async () => {
    const result = await fetch('/missing-page')
    assert.equal(result.code, 1)
    assert.match(result.stdout, /HTTP 404/)
    assert.match(result.stdout, /<untrusted-content id="[^"]+"[^>]*>\n(?:.*\n)*?not here\n/)
    assert.match(result.stderr, /dsh: web_fetch failed: WEB_HTTP_STATUS: The server answered 404 Not Found; the text is the page it sent with that status \(often an error page, not the content asked for\)\./)
  })

  it('a scanned PDF and an image: typed errors naming the page count, and the type and size', async () => {
    const failed = async (path: string) => {
      const result = await fetch(path, '--json')
      assert.equal(result.code, 1, 'dsh fetch exits 1 on an error')
      return JSON.parse(result.stdout)
    }
    const scan = await failed('/scan.pdf')
    assert.equal(scan.isError, true)
    assert.equal(scan.error.code, 'WEB_NO_TEXT_CONTENT')
    assert.match(scan.error.message, /has 1 page and no text layer/)
    const image = await failed('/photo.jpg')
    assert.equal(image.error.code, 'WEB_UNSUPPORTED_CONTENT_TYPE')
    assert.match(image.error.message, /is an image \(image\/jpeg, 6 bytes\)/)
  })
})
