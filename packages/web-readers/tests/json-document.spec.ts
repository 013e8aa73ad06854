import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DocumentError } from '../src/workers/document-error.js'
import { htmlToText, readFeed } from '../src/convert/feed-items.js'
import { MAX_JSON_DEPTH, formatJson, measureJson, scanJsonDepth } from '../src/convert/json-document.js'

describe('JSON bounds', () => {
  it('counts nesting by brackets outside strings, escaped quotes included', () => {
    assert.equal(scanJsonDepth('{"a": "[[[[\\"{{{{", "b": [[1]]}'), 3)
    assert.equal(scanJsonDepth('"just a string with [ and {"'), 0)
    assert.equal(scanJsonDepth('['.repeat(10_000_000)), MAX_JSON_DEPTH + 1, 'stops once past the limit')
  })

  it('bounds the pretty-printed size from above, without building it', () => {
    for (const value of [{ a: [1, 2, { b: 'x' }], c: null }, [[[['deep']]]], 'plain', [], {}]) {
      const source = JSON.stringify(value)
      const { prettyChars } = measureJson(value, { depth: 100, chars: Infinity }, source.length)
      assert.ok(prettyChars >= JSON.stringify(value, null, 2).length, `${source}: ${prettyChars}`)
    }
  })

  it('refuses JSON whose pretty text would pass the limit, as WEB_FETCH_TOO_LARGE in the worker', () => {
    const wide = JSON.stringify(Array.from({ length: 10 }, () => Array.from({ length: 10 }, () => [[[[1]]]])))
    const { prettyChars } = measureJson(JSON.parse(wide), { depth: 100, chars: 50 }, wide.length)
    assert.ok(prettyChars > 50)
    const error = (() => {
      try {
        formatJson({ text: `[${'1,'.repeat(3_000_000)}1]`, format: 'text', shownUrl: 'https://api.test/big' })
      } catch (error) {
        return error
      }
    })()
    assert.ok(error instanceof DocumentError)
    assert.equal(error.code, 'WEB_FETCH_TOO_LARGE')
    assert.match(error.message, /^The JSON at https:\/\/api\.test\/big would be more than 16000000 characters pretty-printed/)
  })
})

describe('feed text', () => {
  it('turns deeply nested summary HTML into text without overflowing the stack', () => {
    const html = `${'<div>'.repeat(50_000)}deep${'</div>'.repeat(50_000)}`
    assert.equal(htmlToText(html), 'deep')
  })

  it('is not a feed when the root is something else', () => {
    assert.equal(readFeed('<html><body>x</body></html>', 'https://site.test/'), undefined)
    assert.equal(readFeed('<config/>', 'https://site.test/'), undefined)
  })

  it('expands no DTD entities (no billion laughs)', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><rss version="2.0"><channel><title>&c;</title><item><title>&c;&c;</title></item></channel></rss>`
    const feed = readFeed(bomb, 'https://site.test/')
    assert.ok(feed)
    assert.ok((feed.items[0]?.title ?? '').length < 100, feed.items[0]?.title)
  })
})
