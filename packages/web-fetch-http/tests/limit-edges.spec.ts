// Every fetch limit at its edge: N passes, N+1 is refused. A limit tested
// only as "holds" passes the suite one too high or 64 times too high; these
// fail then. The redirect limit (maxRedirects), the body cap on the wire
// (maxBytes) and the cap on decompressed output (maxBytes again, in the
// worker and, with allowPartial, while streaming).
import assert from 'node:assert/strict'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, refusal, signal, startServer } from './helpers.js'

const CAP = 4096
const REDIRECTS = 3

describe('fetch limits at N and N+1', () => {
  let server: TestServer
  before(async () => {
    server = await startServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x')
      const size = Number(url.searchParams.get('size'))
      if (url.pathname.startsWith('/chain/')) {
        // /chain/N redirects N more times, then answers.
        const left = Number(url.pathname.slice('/chain/'.length))
        if (left > 0) response.writeHead(302, { location: `/chain/${left - 1}` }).end()
        else response.writeHead(200, { 'content-type': 'text/plain' }).end('arrived')
        return
      }
      const body = Buffer.alloc(size, 'a')
      if (url.pathname === '/plain') response.writeHead(200, { 'content-type': 'text/plain' }).end(body)
      else if (url.pathname === '/gzip') response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync(body))
      else if (url.pathname === '/br') response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' }).end(brotliCompressSync(body))
      else response.writeHead(404).end()
    })
  })
  const fetcher = createHttpFetcher({ env: {}, privateHosts: ['127.0.0.1'], maxBytes: CAP, maxRedirects: REDIRECTS, cacheTtlMs: 0 })
  after(async () => {
    await Promise.all([server?.close(), fetcher.close()])
  })
  const get = (path: string, extra: Record<string, unknown> = {}) => fetcher.fetch({ url: `${server.origin}${path}`, format: 'text', ...extra }, { signal: signal() })

  it(`follows exactly maxRedirects (${REDIRECTS}) redirects and refuses one more`, async () => {
    const followed = await get(`/chain/${REDIRECTS}`)
    assert.equal(followed.text, 'arrived')
    assert.equal(followed.provenance.redirects.length, REDIRECTS)
    const refused = await refusal(get(`/chain/${REDIRECTS + 1}`))
    assert.equal(refused.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(refused.details.limit, REDIRECTS)
  })

  it(`reads a body of exactly maxBytes (${CAP}) and refuses one byte more`, async () => {
    const whole = await get(`/plain?size=${CAP}`)
    assert.equal(whole.totalChars, CAP)
    assert.equal(whole.truncated, false)
    const refused = await refusal(get(`/plain?size=${CAP + 1}`))
    assert.equal(refused.code, 'WEB_FETCH_TOO_LARGE')
    assert.equal(refused.details.limit, CAP)
    assert.match(refused.message, new RegExp(`larger than the limit of ${CAP} bytes; it was not read to the end\\. The limit is maxBytes of the web-fetch-http row`), 'the refusal names the setting to change')
  })

  for (const encoding of ['gzip', 'br']) {
    it(`inflates a ${encoding} body to exactly maxBytes and refuses one byte more of output`, async () => {
      const whole = await get(`/${encoding}?size=${CAP}`)
      assert.equal(whole.totalChars, CAP)
      assert.equal(whole.truncated, false)
      const refused = await refusal(get(`/${encoding}?size=${CAP + 1}`))
      assert.equal(refused.code, 'WEB_FETCH_TOO_LARGE')
      assert.match(refused.message, /after decompression/)
    })

    it(`with allowPartial, streams a ${encoding} body of exactly maxBytes whole and cuts one byte more`, async () => {
      const whole = await get(`/${encoding}?size=${CAP}`, { allowPartial: true })
      assert.equal(whole.totalChars, CAP)
      assert.equal(whole.truncated, false)
      const cut = await get(`/${encoding}?size=${CAP + 1}`, { allowPartial: true })
      assert.equal(cut.totalChars, CAP)
      assert.equal(cut.truncated, true)
    })
  }
})
