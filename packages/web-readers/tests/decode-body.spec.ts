import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import { charsetFromMeta, contentEncodings, decodeBody, decodedPrefix, inflateBody } from '../src/convert/decode-body.js'
import { DocumentError } from '../src/workers/document-error.js'

const bytes = (...values: number[]) => Uint8Array.from(values)
const ascii = (text: string) => Buffer.from(text, 'latin1')

describe('charset decoding as a browser finds it', () => {
  it('decodes Shift_JIS, GBK and windows-1251 named by the Content-Type', () => {
    assert.equal(decodeBody(bytes(0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea), 'text/plain; charset=Shift_JIS', false).text, '日本語')
    assert.equal(decodeBody(bytes(0xd6, 0xd0, 0xce, 0xc4), 'text/plain; charset="gbk"', false).text, '中文')
    assert.equal(decodeBody(bytes(0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2), 'text/html;charset=windows-1251', true).text, 'Привет')
  })

  it('decodes every byte 0x80 to 0x9F of windows-1252 as WHATWG maps it, also under the latin1 labels', () => {
    const high = Array.from({ length: 32 }, (_, index) => 0x80 + index)
    const expected = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ'
    assert.equal(decodeBody(Uint8Array.from(high), 'text/plain; charset=windows-1252', false).text, expected)
    const latin1 = decodeBody(Uint8Array.from(high), 'text/plain; charset=ISO-8859-1', false)
    assert.equal(latin1.text, expected)
    assert.equal(latin1.charset, 'windows-1252')
  })

  it('lets the byte order mark win over the header', () => {
    const utf16 = decodeBody(bytes(0xff, 0xfe, 0x68, 0x00, 0x69, 0x00), 'text/plain; charset=windows-1252', false)
    assert.deepEqual([utf16.text, utf16.charset, utf16.source], ['hi', 'utf-16le', 'bom'])
    const utf8 = decodeBody(bytes(0xef, 0xbb, 0xbf, 0xc3, 0xa9), 'text/plain; charset=windows-1252', false)
    assert.deepEqual([utf8.text, utf8.source], ['é', 'bom'])
  })

  it('finds <meta charset> and http-equiv in the first bytes of HTML, and defaults to UTF-8', () => {
    assert.equal(charsetFromMeta(ascii('<html><head><meta charset="koi8-r">')), 'koi8-r')
    assert.equal(charsetFromMeta(ascii('<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">')), 'Shift_JIS')
    assert.equal(charsetFromMeta(ascii('<!-- <meta charset="gbk"> --><p>')), undefined)
    const meta = decodeBody(Buffer.concat([ascii('<meta charset="windows-1251"><p>'), bytes(0xe4, 0xe0)]), 'text/html', true)
    assert.deepEqual([meta.charset, meta.source], ['windows-1251', 'meta'])
    assert.match(meta.text, /да/)
    const fallback = decodeBody(Buffer.from('<p>ünïcode</p>'), 'text/html', true)
    assert.deepEqual([fallback.text, fallback.charset, fallback.source], ['<p>ünïcode</p>', 'utf-8', 'default'])
  })

  it('treats a meta that claims UTF-16 in ASCII bytes as UTF-8', () => {
    const result = decodeBody(Buffer.from('<meta charset="utf-16"><p>ok é</p>'), undefined, true)
    assert.equal(result.charset, 'utf-8')
    assert.match(result.text, /ok é/)
  })
})

describe('content encodings undone in the worker', () => {
  const text = Buffer.from('<p>' + 'some page text, '.repeat(2000) + '</p>')

  it('reads the Content-Encoding list in the order applied and undoes it in reverse, identity skipped', () => {
    assert.deepEqual(contentEncodings(' GZIP, identity ,br'), ['gzip', 'br'])
    assert.deepEqual(inflateBody(brotliCompressSync(gzipSync(text)), ['gzip', 'br'], 1_000_000), text)
    assert.deepEqual(inflateBody(deflateSync(text), ['deflate'], 1_000_000), text)
    assert.deepEqual(inflateBody(deflateRawSync(text), ['deflate'], 1_000_000), text)
    assert.deepEqual(inflateBody(gzipSync(text), ['x-gzip'], text.length), text, 'exactly the cap fits')
  })

  it('caps the output: a bomb is WEB_FETCH_TOO_LARGE, bytes that do not inflate WEB_FETCH_FAILED', () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024))
    assert.throws(() => inflateBody(bomb, ['gzip'], 100_000), (error: unknown) => {
      assert.ok(error instanceof DocumentError)
      assert.equal(error.code, 'WEB_FETCH_TOO_LARGE')
      assert.equal(error.message, 'The response is larger than the limit of 100000 bytes (after decompression); it was not read to the end. The limit is maxBytes of the web-fetch-http row (an operator\'s setting); read another source, or ask the operator to raise it.')
      assert.deepEqual(error.details, { limit: 100_000 })
      return true
    })
    assert.throws(() => inflateBody(Buffer.from('not gzip'), ['gzip'], 100_000), (error: unknown) => {
      assert.ok(error instanceof DocumentError)
      assert.equal(error.code, 'WEB_FETCH_FAILED')
      assert.equal(error.message, 'The gzip-encoded body could not be decompressed (incorrect header check).')
      return true
    })
    // deflate, as when streamed, does not accept a cut-off end; gzip does.
    assert.throws(() => inflateBody(deflateSync(text).subarray(0, 100), ['deflate'], 100_000), /could not be decompressed/)
    assert.ok(inflateBody(gzipSync(text).subarray(0, 100), ['gzip'], 100_000).length > 0)
  })

  it('decodes a bounded prefix for sniffing, or says it cannot', () => {
    assert.deepEqual(decodedPrefix(gzipSync(text), 'gzip', 1024), text.subarray(0, 1024))
    const short = Buffer.from('<p>short</p>')
    assert.deepEqual(decodedPrefix(gzipSync(short), 'gzip', 1024), short, 'a body shorter than the prefix is all of it')
    // Its first KB of compressed bytes is read, no more: a bomb gives its first KB and is not inflated.
    assert.equal(decodedPrefix(gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x61)), 'gzip', 1024)?.length, 1024)
    assert.equal(decodedPrefix(Buffer.from('not gzip at all'), 'gzip', 1024), undefined)
    // Incompressible text of which the first KB of compressed bytes decodes to less than a KB: not enough, so undefined.
    const noise = Buffer.from(Array.from({ length: 5000 }, (_, index) => 0x20 + ((index * 7919) % 90)))
    assert.equal(decodedPrefix(gzipSync(noise, { level: 0 }).subarray(0, 5000), 'gzip', 4096), undefined)
  })
})
