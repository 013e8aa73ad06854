import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { JsonDepthScan } from '../src/http/http-body.js'

/** Feeds `text` to a scan in pieces of `size` bytes; the offset where the depth first passes `maxDepth`, or -1. */
function scan(text: string, maxDepth: number, size = Infinity): number {
  const bytes = Buffer.from(text, 'utf8')
  const depth = new JsonDepthScan(maxDepth)
  for (let start = 0; start < bytes.length; start += Math.min(size, bytes.length)) {
    const at = depth.feed(bytes.subarray(start, Math.min(start + size, bytes.length)))
    if (at >= 0) return at
  }
  return -1
}

describe('JsonDepthScan: the nesting of JSON text, counted as its bytes arrive', () => {
  it('finds the byte where the depth passes the limit, in one piece or byte by byte', () => {
    for (const size of [Infinity, 1, 3]) {
      assert.equal(scan('[[[]]]', 3, size), -1, `${size}`)
      assert.equal(scan('[[[[]]]]', 3, size), 3, `${size}`)
      assert.equal(scan('{"a":{"b":[{"c":1}]}}', 4, size), -1, `${size}`)
      assert.equal(scan('{"a":{"b":[{"c":1}]}}', 3, size), 11, `${size}`)
      assert.equal(scan('{"a":{"b":[{"c":[1]}]}}', 4, size), 16, `${size}`)
      // Depth is what is open at once, not how many were opened.
      assert.equal(scan('[[],[],[],[]]', 2, size), -1, `${size}`)
    }
  })

  it('ignores brackets inside strings, escaped quotes and backslashes included, also when a piece ends inside an escape', () => {
    const text = JSON.stringify({ text: '[[[[{{{{"\\\\"]]]]\\' + '['.repeat(100), more: ['"[', '\\"{{'] })
    for (const size of [Infinity, 1, 2, 5, 7]) assert.equal(scan(text, 2, size), -1, `${size}`)
    assert.equal(scan('["\\\\", [[1]]]', 2, 1), 8, 'an escaped backslash ends its escape: the quote after it closes the string')
  })

  it('is not confused by multi-byte UTF-8 characters', () => {
    assert.equal(scan(JSON.stringify(['é€😀', ['[ü]']]), 2, 1), -1)
    assert.equal(scan('["😀",[[1]]]', 2, 1), 9, 'offsets count bytes')
  })
})
