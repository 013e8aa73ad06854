import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MIN_CHOICES, removeChoiceMenus } from '../src/html/choice-menus.js'
import { htmlParser } from '../src/html/parse-html.js'

/** The body of `inner`, after removeChoiceMenus: its text, and how many blocks went. */
function clean(inner: string) {
  const html = `<!doctype html><html><body>${inner}</body></html>`
  const body = htmlParser.parse(html, 'https://site.example/').body!
  const removed = removeChoiceMenus(body, html)
  return { removed, text: (body.textContent ?? '').replace(/\s+/g, ' ').trim() }
}

const facets = (count: number, type = 'checkbox') =>
  Array.from({ length: count }, (_, index) => `<li><input type="${type}" id="f${index}"><label for="f${index}">Brand ${index} (1,2${index}0)</label></li>`).join('')
const article = '<article><p>The shop restocks its walking boots every spring, and this year the range grows by three models.</p></article>'

describe('choice menus (facet filters, option lists) are removed before a candidate is chosen', () => {
  it('removes a block of checkboxes whose text is their labels, whole, and leaves the content', () => {
    const { removed, text } = clean(`<aside class="filters"><h3>Brand</h3><ul>${facets(8)}</ul></aside>${article}`)
    assert.equal(removed, 1)
    assert.equal(text, 'The shop restocks its walking boots every spring, and this year the range grows by three models.')
  })

  it('removes radio groups the same way, and each menu of a page', () => {
    const { removed, text } = clean(`<div class="sort"><ul>${facets(6, 'radio')}</ul></div>${article}<div class="colour"><ul>${facets(5)}</ul></div>`)
    assert.equal(removed, 2)
    assert.doesNotMatch(text, /Brand/)
  })

  it(`leaves fewer than ${MIN_CHOICES} controls alone (a consent box, a yes/no question)`, () => {
    const { removed, text } = clean(`<form><ul>${facets(MIN_CHOICES - 1)}</ul></form>${article}`)
    assert.equal(removed, 0)
    assert.match(text, /Brand 0/)
  })

  it('takes the menu out of a block whose labels are not most of its text, and leaves the block (a poll inside an article)', () => {
    const prose = '<p>Most readers told us they walk more than ten kilometres a week, and many of them walk on rough ground in all weathers.</p>'
    const { removed, text } = clean(`<article>${prose.repeat(4)}<ul>${facets(6)}</ul>${prose.replace('Most', 'Some')}</article>`)
    assert.equal(removed, 1)
    assert.match(text, /^Most readers told us.*Some readers told us.*weathers\.$/)
    assert.doesNotMatch(text, /Brand/)
  })

  it('takes only the navigation out of a page whose navigation is checkbox folders, not the page (more than half its text in labels)', () => {
    const folders = Array.from({ length: 12 }, (_, index) => `<li><input type="checkbox" id="n${index}"><label for="n${index}"><a href="/docs/${index}">Section ${index}: setting up</a></label></li>`).join('')
    const { removed, text } = clean(`<div class="page"><nav><ul>${folders}</ul></nav>${article}</div>`)
    assert.equal(removed, 1)
    assert.equal(text, 'The shop restocks its walking boots every spring, and this year the range grows by three models.')
  })

  it('leaves long labels: tabs drawn with radio buttons wrap each panel in a label; a quiz answers in sentences', () => {
    const panel = (index: number) => `<input type="radio" name="tabs" id="t${index}"><label for="t${index}">Step ${index}: unpack the tent, lay the groundsheet flat on the pitch and peg out each corner before you raise the poles.</label>`
    const tabs = clean(`<div class="tabs">${Array.from({ length: 6 }, (_, index) => panel(index)).join('')}</div>`)
    assert.equal(tabs.removed, 0)
    assert.match(tabs.text, /Step 5: unpack the tent/)
  })
})
