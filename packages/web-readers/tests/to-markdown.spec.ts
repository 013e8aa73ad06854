import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { htmlParser } from '../src/html/parse-html.js'
import { toMarkdown } from '../src/html/to-markdown.js'

const markdown = (inner: string) => toMarkdown(htmlParser.parse(`<!doctype html><html><body>${inner}</body></html>`, 'https://site.example/').body!)
const TABLE = '| Gauge | Load |\n| --- | --- |\n| 12 | 20 A |\n| 14 | 15 A |'
const rows = '<tr><td>12</td><td>20 A</td></tr><tr><td>14</td><td>15 A</td></tr>'

describe('data tables become GFM tables, their first row the header', () => {
  it('a table with a <thead>', () => {
    assert.equal(markdown(`<table><thead><tr><th>Gauge</th><th>Load</th></tr></thead><tbody>${rows}</tbody></table>`), TABLE)
  })

  it('a table whose first row is cells, not headings', () => {
    assert.equal(markdown(`<table><tr><td>Gauge</td><td>Load</td></tr>${rows}</table>`), TABLE)
  })

  it('a table whose header row follows a <colgroup> (it stayed HTML: the GFM rules look at the first child only)', () => {
    assert.equal(markdown(`<table><colgroup><col><col></colgroup><tbody><tr><th>Gauge</th><th>Load</th></tr>${rows}</tbody></table>`), TABLE)
  })

  it("a table with a <caption>: the caption is the paragraph above it, the table's rows start after a blank line", () => {
    assert.equal(markdown(`<table><caption>Cable gauges</caption><tr><th>Gauge</th><th>Load</th></tr>${rows}</table>`), `Cable gauges\n\n${TABLE}`)
  })

  it("a layout table (a single column) becomes its cells' content", () => {
    assert.equal(markdown('<table><tr><td>First block of the page.</td></tr><tr><td>Second block.</td></tr></table>'), 'First block of the page.\n\nSecond block.')
  })
})
