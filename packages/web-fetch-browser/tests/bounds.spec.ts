// What a page controls is bounded: its wall time (a page that never finishes
// is read at its deadline, marked partial), its requests, its memory (the
// browser is killed past its cap and the next call starts a new one) and the
// pages rendered at once.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { chromiumMissing, listen, type Listener, testFetcher } from './helpers.js'

const PAGES: Record<string, string> = {
  '/never-finishes': `<html><head><title>Slow</title></head><body><main><h1>Never finishes</h1><p>The text that arrived before the page stalled on its last image.</p><img src="/hang"></main></body></html>`,
  '/allocates': `<html><head><title>Hungry</title></head><body><p>Allocating, and never done loading.</p><img src="/hang"><script>
    const kept = []
    setInterval(() => { try { for (let i = 0; i < 4; i++) kept.push(new Uint8Array(32 * 1024 * 1024).fill(7)) } catch {} }, 10)
  </script></body></html>`,
  '/heavy': `<html><head><title>Heavy</title></head><body><main><h1>Heavy images</h1><p>Its images weigh more than the page may bring back.</p>${Array.from({ length: 8 }, (_, i) => `<img src="/big-${i}.bin">`).join('')}</main></body></html>`,
  '/plain': `<html><head><title>Plain</title></head><body><main><h1>A plain page</h1><p>It renders as it should, after whatever came before.</p></main></body></html>`,
  '/many-images': `<html><head><title>Many</title></head><body><main><h1>Many images</h1><p>Twenty images, more than the page may load.</p>${Array.from({ length: 20 }, (_, i) => `<img src="/image-${i}.gif">`).join('')}</main></body></html>`,
}

describe('bounds of a rendered page', { skip: chromiumMissing }, () => {
  let site: Listener
  const hanging: import('node:http').ServerResponse[] = []
  /** Called when the next /hang request arrives. */
  let onHang = () => {}

  before(async () => {
    site = await listen('127.0.0.1', (request, response) => {
      if (request.url === '/hang') {
        hanging.push(response)
        return void onHang()
      }
      if (request.url?.startsWith('/big-')) return void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(256 * 1024, 1))
      if (request.url?.startsWith('/image-')) return void response.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'))
      const page = PAGES[request.url ?? '']
      if (page) return void response.writeHead(200, { 'content-type': 'text/html' }).end(page)
      response.writeHead(404).end()
    })
  })
  after(async () => {
    for (const response of hanging) response.destroy()
    await site?.close()
  })

  it('a page that never finishes loading ends at its deadline as partial, with the text it had', async () => {
    const fetcher = testFetcher({ timeoutMs: 10_000 })
    try {
      // The browser is started first: the deadline counts its launch too, and on a loaded machine a cold launch can take most of it.
      await fetcher.fetch({ url: `${site.origin}/plain` })
      const result = await fetcher.fetch({ url: `${site.origin}/never-finishes` })
      assert.equal(result.outcome?.kind, 'partial')
      assert.equal(result.outcome?.readAs, 'rendered')
      assert.match(result.outcome?.evidence ?? '', /deadline/)
      assert.match(result.text, /arrived before the page stalled/)
      assert.ok(hanging.length >= 1, 'the image was asked for and left hanging')
    } finally {
      await fetcher.close()
    }
  })

  it('a page that allocates without end is stopped at the memory cap, and the next rendered call works', async () => {
    const fetcher = testFetcher({ memoryMb: 1600, memoryCheckMs: 50, timeoutMs: 30_000 })
    try {
      await assert.rejects(fetcher.fetch({ url: `${site.origin}/allocates` }), (error: unknown) => {
        assert.ok(WebError.is(error), String(error))
        assert.equal(error.code, 'WEB_DOCUMENT_TOO_COMPLEX', error.message)
        assert.match(error.message, /over its memory cap of 1600 MB \(memoryMb\)/)
        return true
      })
      const next = await fetcher.fetch({ url: `${site.origin}/plain` })
      assert.match(next.text, /renders as it should/)
      assert.equal(fetcher.status().launches, 2, JSON.stringify(fetcher.status()))
      assert.match(fetcher.status().lastExit ?? '', /memory cap/)
    } finally {
      await fetcher.close()
    }
  })

  it('requests past maxRequests are refused and counted, and the page is still read', async () => {
    const fetcher = testFetcher({ maxRequests: 5 })
    try {
      const result = await fetcher.fetch({ url: `${site.origin}/many-images` })
      assert.match(result.text, /Twenty images/)
      const refused = result.provenance.refused!
      assert.ok(refused.count >= 15, JSON.stringify(refused))
      assert.ok(refused.first.some((entry) => entry.code === 'WEB_RATE_LIMITED' && /more than 5 requests/.test(entry.reason)), JSON.stringify(refused))
      assert.ok(result.warnings.some((warning) => /refused/.test(warning)))
    } finally {
      await fetcher.close()
    }
  })

  it('pages over maxContexts wait for a context and are rendered in turn', async () => {
    const fetcher = testFetcher({ maxContexts: 1 })
    try {
      const results = await Promise.all([fetcher.fetch({ url: `${site.origin}/plain` }), fetcher.fetch({ url: `${site.origin}/plain`, format: 'text' })])
      for (const result of results) assert.match(result.text, /A plain page/)
      assert.equal(fetcher.status().launches, 1)
    } finally {
      await fetcher.close()
    }
  })

  it('the page\'s traffic past maxBytes is cut, later requests refused, and the result says so', async () => {
    const fetcher = testFetcher({ maxBytes: 600 * 1024 })
    try {
      const result = await fetcher.fetch({ url: `${site.origin}/heavy` })
      assert.match(result.text, /weigh more than the page may bring back/)
      assert.ok(result.warnings.some((warning) => /byte cap of 614400 bytes/.test(warning)), result.warnings.join('\n'))
      assert.ok(result.provenance.bytesRead <= 600 * 1024 + 256 * 1024, String(result.provenance.bytesRead))
      assert.ok(result.provenance.refused!.first.some((entry) => entry.code === 'WEB_FETCH_TOO_LARGE'), JSON.stringify(result.provenance.refused))
    } finally {
      await fetcher.close()
    }
  })

  it('a render in flight when the provider is closed ends with WEB_FETCH_FAILED saying so, not as a crash or a memory stop', async () => {
    const fetcher = testFetcher({ timeoutMs: 60_000 })
    const hung = new Promise<void>((resolve) => (onHang = resolve))
    const call = fetcher.fetch({ url: `${site.origin}/never-finishes` })
    await hung
    const ended = assert.rejects(call, (error: unknown) => {
      assert.ok(WebError.is(error), String(error))
      assert.equal(error.code, 'WEB_FETCH_FAILED', error.message)
      assert.match(error.message, /shut down/)
      assert.doesNotMatch(error.message, /started again/)
      return true
    })
    await fetcher.close()
    await ended
  })
})
