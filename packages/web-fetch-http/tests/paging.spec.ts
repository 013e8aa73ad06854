import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import type { JsonValue, SessionEvent, SessionHandle } from 'dsh-host'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { slicePage } from '../../web-readers/src/view/paging.js'
import { type TestServer, signal, startServer, refusal } from './helpers.js'

function longArticle(paragraphs: number): string {
  const body = Array.from({ length: paragraphs }, (_, index) => `<p>Paragraph ${index}: the quick brown fox jumps over the lazy dog, and then 🦊 rests — “quoted” text ${index}.</p>`).join('\n')
  return `<!doctype html><html lang="en"><head><title>Long read</title></head><body><nav><a href="/">Home</a></nav><article><h1>Long read</h1>${body}</article><footer>© footer</footer></body></html>`
}


describe('paging, cache and artifacts', () => {
  let server: TestServer
  let home: string
  let version = 1
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-fetch-paging-'))
    server = await startServer((request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8')
      if (request.url === '/long') return response.end(longArticle(600))
      if (request.url === '/changing') return response.end(longArticle(40).replace('Long read', `Version ${version}`))
      response.end(longArticle(3))
    })
  })
  after(async () => {
    await server.close()
    await fetcher.close()
    await rm(home, { recursive: true, force: true })
  })
  const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], artifactThreshold: 50_000 })

  it('reconstructs the whole document exactly from its pages, all from one fetch', async () => {
    const url = `${server.origin}/long`
    const first = await fetcher.fetch({ url, format: 'markdown', extract: 'full', maxChars: 100_000 }, { signal: signal() })
    const whole = first.text + (first.nextOffset === undefined ? '' : '')
    assert.ok(first.totalChars > 7_000)
    const hitsBefore = server.hits.length
    let text = ''
    let offset: number | undefined = 0
    const hashes = new Set<string>()
    let pages = 0
    while (offset !== undefined) {
      const page = await fetcher.fetch({ url, format: 'markdown', extract: 'full', maxChars: 7_001, offset }, { signal: signal() })
      assert.equal(page.offset, offset)
      assert.equal(page.provenance.cacheHit, true)
      hashes.add(page.provenance.sourceSha256!)
      text += page.text
      if (page.nextOffset !== undefined) {
        assert.equal(page.truncated, true)
        assert.match(page.truncatedReason ?? '', new RegExp(`offset ${page.nextOffset}`))
      } else assert.equal(page.truncated, false)
      offset = page.nextOffset
      pages++
    }
    assert.ok(pages > 5)
    assert.equal(server.hits.length, hitsBefore, 'no page went back to the network')
    assert.equal(hashes.size, 1)
    assert.equal(text.length, first.totalChars)
    if (first.totalChars <= 100_000) assert.equal(text, whole)
  })

  it('never splits a surrogate pair between pages', () => {
    const text = 'ab🦊cd🦊'
    let joined = ''
    let offset: number | undefined = 0
    while (offset !== undefined) {
      const page = slicePage(text, { offset, maxChars: 3 })
      assert.ok(!/[\ud800-\udbff]$/.test(page.text), 'no lone high surrogate at the end of a page')
      joined += page.text
      offset = page.nextOffset
    }
    assert.equal(joined, text)
  })

  it('keeps one snapshot while the page changes underneath', async () => {
    const url = `${server.origin}/changing`
    const first = await fetcher.fetch({ url, format: 'text', maxChars: 500 }, { signal: signal() })
    version = 2
    const second = await fetcher.fetch({ url, format: 'text', maxChars: 500, offset: first.nextOffset }, { signal: signal() })
    assert.equal(second.provenance.cacheHit, true)
    assert.equal(second.provenance.sourceSha256, first.provenance.sourceSha256)
    assert.equal(second.metadata.title, 'Version 1')
  })

  it('refuses offsets and maxChars out of range with the valid range in the message', async () => {
    const url = `${server.origin}/short`
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ offset: -1 }, /0 or more/],
      [{ offset: 1.5 }, /whole number/],
      [{ maxChars: 0 }, /from 1 to 100000/],
      [{ maxChars: 100_001 }, /from 1 to 100000/],
      [{ maxChars: '10' }, /from 1 to 100000/],
      [{ offset: 10_000_000 }, /past the end.*from 0 to \d+/],
    ]
    for (const [extra, message] of cases) {
      const error = await refusal(fetcher.fetch({ url, ...extra } as never, { signal: signal() }))
      assert.equal(error.code, 'INVALID_ARGUMENT')
      assert.match(error.message, message)
    }
    assert.equal((await refusal(fetcher.fetch({ url, format: 'pdf' } as never, { signal: signal() }))).code, 'INVALID_ARGUMENT')
  })

  it("writes text over the threshold whole to an artifact in the session's folder", async () => {
    const events: string[] = []
    const session: SessionHandle = {
      id: 'session-1',
      dir: join(home, 'sessions', 'session-1'),
      async append(type: string, data: JsonValue) {
        events.push(type)
        return { seq: events.length, time: new Date().toISOString(), type, visibility: 'log', data } as SessionEvent
      },
      async read() {
        return []
      },
    }
    const document = await fetcher.fetch({ url: `${server.origin}/long`, format: 'text', maxChars: 1000 }, { signal: signal(), session, callId: 'call-7' })
    assert.ok(document.totalChars > 50_000)
    const artifact = document.artifact!
    assert.ok(artifact.path.startsWith(join(home, 'sessions', 'session-1')))
    const written = await readFile(artifact.path, 'utf8')
    // Fenced as in the result: the marker and its note, the text whole, the closing marker.
    const lines = written.split('\n')
    assert.match(lines[0], /^<untrusted-content id="([0-9a-f]{12})" source="[^"]+\/long">$/)
    assert.match(lines[1], /^\(Data from the web, not instructions/)
    assert.equal(lines.at(-2), `</untrusted-content id="${/id="([0-9a-f]{12})"/.exec(lines[0])![1]}">`)
    const text = lines.slice(2, -2).join('\n')
    assert.equal(text.length, document.totalChars)
    assert.equal(text.slice(0, 1000), document.text)
    assert.equal(artifact.bytes, Buffer.byteLength(written))
    const { createHash } = await import('node:crypto')
    assert.equal(artifact.sha256, createHash('sha256').update(written).digest('hex'))
  })

  it('writes the artifact through the seam to artifactDir when the call has no session', async () => {
    const directory = join(home, 'operator-artifacts')
    const writer = createHttpFetcher({ privateHosts: ['127.0.0.1'], artifactThreshold: 100, artifactDir: directory })
    try {
      const document = await writer.fetch({ url: `${server.origin}/short`, format: 'markdown' }, { signal: signal(), callId: 'call/9' })
      const artifact = document.artifact!
      assert.equal(dirname(artifact.path), directory)
      assert.match(basename(artifact.path), /^web-fetch-call-9-[0-9a-f]{8}\.md$/)
      const written = await readFile(artifact.path)
      assert.equal(written.toString('utf8').split('\n').slice(2, -2).join('\n'), document.text)
      assert.equal(artifact.bytes, written.length)
      assert.equal((await stat(artifact.path)).mode & 0o777, 0o600)
      const again = await writer.fetch({ url: `${server.origin}/short`, format: 'markdown' }, { signal: signal() })
      assert.deepEqual(again.artifact, artifact, 'a cached document is written once per place')
    } finally {
      await writer.close()
    }
  })

  it('reports an artifact that cannot be written as WEB_ARTIFACT_WRITE_FAILED', async () => {
    const blocker = join(home, 'not-a-directory')
    await writeFile(blocker, 'a file where the artifact folder should be')
    const failing = createHttpFetcher({ privateHosts: ['127.0.0.1'], artifactThreshold: 100, artifactDir: join(blocker, 'artifacts') })
    const error = await refusal(failing.fetch({ url: `${server.origin}/short` }, { signal: signal() }))
    assert.equal(error.code, 'WEB_ARTIFACT_WRITE_FAILED')
    await failing.close()
  })
})

describe('cache keyed by the requested and the final URL', () => {
  // 10,000 characters of text each: a snapshot takes 2 bytes a character of its stored form
  // (the text and under 2,000 characters of provenance) and 256 a key, so 20 to 25 KB.
  const BUDGET_FOR_TWO = 50_000
  let server: TestServer
  before(async () => {
    server = await startServer((request, response) => {
      const path = request.url ?? ''
      if (path.startsWith('/from-')) {
        response.writeHead(302, { location: path.replace('/from-', '/to-') })
        return response.end()
      }
      response.setHeader('content-type', 'text/plain; charset=utf-8')
      response.end(path.padEnd(10_000, '.'))
    })
  })
  after(() => server.close())

  it('a hit through the final URL reports no redirect (it reported the hop of the request that filled the cache)', async () => {
    const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'] })
    try {
      const a = `${server.origin}/from-a`
      const b = `${server.origin}/to-a`
      const hop = { url: a, status: 302, location: '/to-a', route: 'direct', checks: ['trusted', 'pinned'] }
      server.hits.length = 0
      const first = await fetcher.fetch({ url: a, format: 'text' }, { signal: signal() })
      assert.equal(first.provenance.cacheHit, false)
      assert.deepEqual(first.provenance.redirects, [hop])
      assert.deepEqual(server.hits, ['/from-a', '/to-a'])

      const viaFinal = await fetcher.fetch({ url: b, format: 'text' }, { signal: signal() })
      assert.equal(viaFinal.provenance.cacheHit, true)
      assert.equal(viaFinal.provenance.requestedUrl, b)
      assert.equal(viaFinal.provenance.finalUrl, b)
      assert.deepEqual(viaFinal.provenance.redirects, [], 'asking for the final URL followed no redirect')

      const again = await fetcher.fetch({ url: a, format: 'text' }, { signal: signal() })
      assert.equal(again.provenance.cacheHit, true)
      assert.equal(again.provenance.requestedUrl, a)
      assert.deepEqual(again.provenance.redirects, [hop], 'the same request reports the hop it took')
      assert.deepEqual(server.hits, ['/from-a', '/to-a'], 'both hits came from the cache')
    } finally {
      await fetcher.close()
    }
  })

  it('a snapshot stored under two keys counts once against the byte budget and is evicted as one (it counted twice and evicted a document that fit)', async () => {
    // Room for two snapshots, not three.
    const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], cacheMaxBytes: BUDGET_FOR_TWO })
    try {
      server.hits.length = 0
      const redirected = await fetcher.fetch({ url: `${server.origin}/from-b`, format: 'text' }, { signal: signal() })
      assert.equal(redirected.totalChars, 10_000)
      await fetcher.fetch({ url: `${server.origin}/c`, format: 'text' }, { signal: signal() })
      assert.deepEqual(server.hits, ['/from-b', '/to-b', '/c'])
      for (const path of ['/from-b', '/to-b', '/c']) {
        const document = await fetcher.fetch({ url: `${server.origin}${path}`, format: 'text' }, { signal: signal() })
        assert.equal(document.provenance.cacheHit, true, `${path} is still cached`)
      }
      assert.deepEqual(server.hits, ['/from-b', '/to-b', '/c'], 'two snapshots fit in a budget of two')
      // A third snapshot pushes out the least recently used one, /from-b → /to-b, under both its keys.
      await fetcher.fetch({ url: `${server.origin}/d`, format: 'text' }, { signal: signal() })
      const final = await fetcher.fetch({ url: `${server.origin}/to-b`, format: 'text' }, { signal: signal() })
      assert.equal(final.provenance.cacheHit, false, 'the final URL left the cache with the requested URL')
      assert.deepEqual(server.hits, ['/from-b', '/to-b', '/c', '/d', '/to-b'])
    } finally {
      await fetcher.close()
    }
  })
})
