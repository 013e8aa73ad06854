import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { charsetFromMeta, decodeBody } from '../src/decode-body.js'

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
