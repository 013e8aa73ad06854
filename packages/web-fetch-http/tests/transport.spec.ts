import assert from 'node:assert/strict'
import { type Server, createServer as createTcpServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, signal, startServer, refusal } from './helpers.js'


const PAGE = '<html><body><p>plain page</p></body></html>'

describe('hostile and ordinary servers on loopback', () => {
  let server: TestServer
  let raw: Server
  let rawPort: number
  const rawSockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x61))

  before(async () => {
    server = await startServer((request, response) => {
      const path = request.url ?? ''
      switch (path) {
        case '/big': {
          response.setHeader('content-type', 'text/plain')
          response.end('x'.repeat(300_000))
          return
        }
        case '/bomb':
          // sent in small pieces, so that stopping early leaves most of it unread
          response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
          void (async () => {
            for (let at = 0; at < bomb.length && !response.destroyed; at += 4096) {
              if (!response.write(bomb.subarray(at, at + 4096))) await new Promise((resolve) => response.once('drain', resolve))
            }
            response.end()
          })()
          return
        case '/gzip':
          response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-encoding': 'gzip' })
          response.end(gzipSync('gzip body ✓'))
          return
        case '/deflate':
          response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' })
          response.end(deflateSync('zlib deflate body'))
          return
        case '/deflate-raw':
          response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' })
          response.end(deflateRawSync('raw deflate body'))
          return
        case '/br':
          response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' })
          response.end(brotliCompressSync('brotli body'))
          return
        case '/bad-gzip':
          response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
          response.end(Buffer.from('this is not gzip at all'))
          return
        case '/gzip-png':
          // A compressed image with no type: refused by its decoded bytes, with the decoded size (the whole body, not the first KB sniffed).
          response.writeHead(200, { 'content-encoding': 'gzip' })
          response.end(gzipSync(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(5000, 7)])))
          return
        case '/gzip-bad-tail': {
          // The first KB inflates; the checksum at the end does not match: the worker says so.
          const body = gzipSync('<html><body><p>' + Array.from({ length: 12_000 }, (_, index) => (index * 7919) % 100_003).join(' ') + '</p></body></html>')
          body[body.length - 5]! ^= 0xff
          response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          response.end(body)
          return
        }
        case '/gzip-big-wire':
          // More compressed bytes than the cap: refused on the wire, before any inflating.
          response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
          response.end(gzipSync(Buffer.from(Array.from({ length: 200_000 }, (_, index) => (index * 7919) % 251)), { level: 0 }))
          return
        case '/drip': {
          response.writeHead(200, { 'content-type': 'text/plain' })
          const timer = setInterval(() => response.write('.'), 50)
          timers.add(timer)
          response.on('close', () => clearInterval(timer))
          return
        }
        case '/loop':
          response.writeHead(302, { location: '/loop2' })
          response.end()
          return
        case '/loop2':
          response.writeHead(302, { location: '/loop' })
          response.end()
          return
        case '/no-location':
          response.writeHead(302, { 'content-type': 'text/html' })
          response.end('<html><body><p>Moved, but I will not say where.</p></body></html>')
          return
        case '/bad-location':
          response.writeHead(302, { location: 'http://[::1' })
          response.end()
          return
        case '/to-ftp':
          response.writeHead(302, { location: 'ftp://127.0.0.1/file' })
          response.end()
          return
        case '/missing':
          response.writeHead(404, { 'content-type': 'text/html' })
          response.end('<html><body><p>No such page here.</p></body></html>')
          return
        case '/image':
          response.writeHead(200, { 'content-type': 'image/png', 'content-length': '12' })
          response.end('not a PNG...')
          return
        case '/binary-as-html':
          response.writeHead(200, { 'content-type': 'text/html' })
          response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]))
          return
        case '/json':
          response.writeHead(200, { 'content-type': 'application/json' })
          response.end('{"a":[1,2,3]}')
          return
        case '/untyped':
          response.end(PAGE)
          return
        case '/cp1252':
          response.writeHead(200, { 'content-type': 'text/plain; charset=windows-1252' })
          response.end(Buffer.from([0x80, 0x20, 0x93, 0x71, 0x94, 0x20, 0x96, 0x20, 0x9f, 0x20, 0x81, 0x20, 0xe9]))
          return
        case '/lying-label':
          // the header names an encoding that does not exist; the page's own meta is right
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-9000' })
          response.end(Buffer.concat([Buffer.from('<html><head><meta charset="windows-1251"></head><body><p>'), Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]), Buffer.from('</p></body></html>')]))
          return
        case '/lying-meta':
          // the meta claims Shift_JIS, but the header (which wins, as in browsers) says UTF-8
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          response.end('<html><head><meta charset="shift_jis"></head><body><p>naïve café</p></body></html>')
          return
        default:
          response.setHeader('content-type', 'text/html')
          response.end(PAGE)
      }
    })
    raw = createTcpServer((socket) => {
      rawSockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => rawSockets.delete(socket))
      socket.once('data', (data) => {
        const path = data.toString('latin1').split(' ')[1]
        if (path === '/endless-headers') {
          socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n')
          const timer = setInterval(() => socket.write(`x-filler-${Date.now()}: ${'a'.repeat(1000)}\r\n`), 5)
          timers.add(timer)
          socket.on('close', () => clearInterval(timer))
        } else if (path === '/garbage') {
          socket.end('NOT HTTP AT ALL\r\n\r\n')
        } else if (path === '/reset') {
          socket.resetAndDestroy()
        } else {
          socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
        }
      })
    })
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve))
    rawPort = (raw.address() as AddressInfo).port
  })

  after(async () => {
    for (const timer of timers) clearInterval(timer)
    for (const socket of rawSockets) socket.destroy()
    await new Promise<void>((resolve) => raw.close(() => resolve()))
    await server.close()
    await fetcher.close()
    await hurried.close()
  })

  // A deadline far above what the pages need, so that a worker started from source on a busy machine
  // never decides these tests; the deadline tests use `hurried`, whose 1.5 s a slow drip always outlasts.
  const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], maxBytes: 100_000, timeoutMs: 30_000, maxRedirects: 3 })
  const hurried = createHttpFetcher({ privateHosts: ['127.0.0.1'], maxBytes: 100_000, timeoutMs: 1500, maxRedirects: 3 })
  const get = (path: string, extra: Record<string, unknown> = {}) =>
    fetcher.fetch({ url: `${server.origin}${path}`, format: 'text', ...extra }, { signal: signal() })

  it('refuses an oversized body with WEB_FETCH_TOO_LARGE', async () => {
    const error = await refusal(get('/big'))
    assert.equal(error.code, 'WEB_FETCH_TOO_LARGE')
    assert.equal(error.details.limit, 100_000)
  })

  it('returns the part that fits, marked truncated, when the caller asks for it', async () => {
    const document = await get('/big', { allowPartial: true })
    assert.equal(document.totalChars, 100_000)
    assert.equal(document.truncated, true)
    assert.match(document.truncatedReason ?? '', /byte limit of 100000/)
  })

  it('cuts a decompression bomb off at the cap instead of inflating it', async () => {
    const error = await refusal(get('/bomb'))
    assert.equal(error.code, 'WEB_FETCH_TOO_LARGE')
    assert.match(error.message, /after decompression/)
    const partial = await get('/bomb', { allowPartial: true })
    assert.equal(partial.totalChars, 100_000)
    assert.ok(partial.provenance.bytesRead < bomb.length, 'the compressed body was not read to the end')
  })

  it('a compressed body is inflated in the worker under the same cap, errors and sniffing as when decoded while streaming', async () => {
    const image = await refusal(get('/gzip-png'))
    assert.equal(image.code, 'WEB_UNSUPPORTED_CONTENT_TYPE')
    assert.ok(image.message.includes('is a PNG image (with no type, found by its bytes, 5,008 bytes (4.9 KB))'), image.message)
    const broken = await refusal(get('/gzip-bad-tail'))
    assert.equal(broken.code, 'WEB_FETCH_FAILED')
    assert.match(broken.message, /gzip-encoded body could not be decompressed \(incorrect data check\)/)
    assert.equal(broken.details.url, `${server.origin}/gzip-bad-tail`)
    const wire = await refusal(get('/gzip-big-wire'))
    assert.equal(wire.code, 'WEB_FETCH_TOO_LARGE')
    assert.equal(wire.details.limit, 100_000)
    const bomb = await refusal(get('/bomb'))
    assert.equal(bomb.details.limit, 100_000)
    assert.equal(bomb.details.url, `${server.origin}/bomb`)
  })

  it('decodes gzip, zlib and raw deflate, and br', async () => {
    assert.equal((await get('/gzip')).text, 'gzip body ✓')
    assert.equal((await get('/deflate')).text, 'zlib deflate body')
    assert.equal((await get('/deflate-raw')).text, 'raw deflate body')
    assert.equal((await get('/br')).text, 'brotli body')
  })

  it('reports a body that fails to decompress as WEB_FETCH_FAILED', async () => {
    const error = await refusal(get('/bad-gzip'))
    assert.equal(error.code, 'WEB_FETCH_FAILED')
    assert.match(error.message, /decompress/)
  })

  it('ends a slow drip at the deadline with WEB_TIMEOUT', async () => {
    const error = await refusal(hurried.fetch({ url: `${server.origin}/drip`, format: 'text' }, { signal: signal() }))
    assert.equal(error.code, 'WEB_TIMEOUT')
    assert.match(error.message, /1500 ms/)
  })

  it("ends the request when the caller's signal aborts, with WEB_ABORTED", async () => {
    const controller = new AbortController()
    const pending = fetcher.fetch({ url: `${server.origin}/drip` }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 100)
    assert.equal((await refusal(pending)).code, 'WEB_ABORTED')
  })

  it('never hangs on headers that never end', async () => {
    const error = await refusal(hurried.fetch({ url: `http://127.0.0.1:${rawPort}/endless-headers` }, { signal: signal() }))
    assert.ok(['WEB_FETCH_FAILED', 'WEB_TIMEOUT'].includes(error.code), error.message)
  })

  it('reports malformed HTTP, a reset and a refused connection as WEB_FETCH_FAILED', async () => {
    const garbage = await refusal(fetcher.fetch({ url: `http://127.0.0.1:${rawPort}/garbage` }, { signal: signal() }))
    assert.equal(garbage.code, 'WEB_FETCH_FAILED')
    assert.match(garbage.message, /malformed HTTP/)
    const reset = await refusal(fetcher.fetch({ url: `http://127.0.0.1:${rawPort}/reset` }, { signal: signal() }))
    assert.equal(reset.code, 'WEB_FETCH_FAILED')
    const closed = await startServer(() => {})
    const port = closed.port
    await closed.close()
    const refused = await refusal(fetcher.fetch({ url: `http://127.0.0.1:${port}/` }, { signal: signal() }))
    assert.equal(refused.code, 'WEB_FETCH_FAILED')
    assert.match(refused.message, /refused/)
  })

  it('refuses a redirect loop after maxRedirects hops', async () => {
    const error = await refusal(get('/loop'))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.match(error.message, /more than 3/)
  })

  it('refuses a Location that does not parse, and one to another scheme', async () => {
    assert.equal((await refusal(get('/bad-location'))).code, 'WEB_REDIRECT_BLOCKED')
    const ftp = await refusal(get('/to-ftp'))
    assert.equal(ftp.code, 'WEB_REDIRECT_BLOCKED')
    assert.match(ftp.message, /ftp/)
  })

  it('returns a 3xx without Location as the response it is, with WEB_HTTP_STATUS', async () => {
    const document = await get('/no-location')
    assert.equal(document.status, 302)
    assert.equal(document.error?.code, 'WEB_HTTP_STATUS')
    assert.equal(document.text, 'Moved, but I will not say where.')
  })

  it("returns a 404 page's text with its status and WEB_HTTP_STATUS", async () => {
    const document = await get('/missing')
    assert.equal(document.status, 404)
    assert.equal(document.error?.code, 'WEB_HTTP_STATUS')
    assert.match(document.error?.message ?? '', /404 Not Found/)
    assert.equal(document.text, 'No such page here.')
  })

  it('refuses an image by its type (PDF and feeds: documents.spec.ts) and binary labelled HTML by sniffing', async () => {
    const image = await refusal(get('/image'))
    assert.equal(image.code, 'WEB_UNSUPPORTED_CONTENT_TYPE')
    assert.match(image.message, /image\/png, 12 bytes/)
    const binary = await refusal(get('/binary-as-html'))
    assert.equal(binary.code, 'WEB_NO_TEXT_CONTENT')
    assert.match(binary.message, /PNG/)
  })

  it('returns JSON pretty-printed and sniffs an untyped HTML page', async () => {
    const json = await get('/json')
    assert.equal(json.text, '{\n  "a": [\n    1,\n    2,\n    3\n  ]\n}')
    assert.equal(json.contentType, 'application/json')
    assert.equal((await get('/untyped')).text, 'plain page')
  })

  it('decodes windows-1252 bytes 0x80 to 0x9F as WHATWG says (not as latin1)', async () => {
    const document = await get('/cp1252')
    assert.equal(document.text, '€ “q” – Ÿ \u0081 é')
    assert.equal(document.provenance.charset, 'windows-1252')
  })

  it('ignores an unknown charset label and uses the meta; the header wins over the meta', async () => {
    const label = await get('/lying-label')
    assert.equal(label.text, 'Привет')
    assert.equal(label.provenance.charset, 'windows-1251')
    const meta = await get('/lying-meta')
    assert.equal(meta.text, 'naïve café')
    assert.equal(meta.provenance.charset, 'utf-8')
  })
})
