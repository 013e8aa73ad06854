import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { removeBuyBoxes } from '../src/html/buy-box.js'
import { extractHtml } from '../src/html/extract-html.js'
import { htmlParser } from '../src/html/parse-html.js'
import type { DomElement } from '../src/html/dom.js'

const body = (html: string): DomElement => htmlParser.parse(`<!doctype html><html><body>${html}</body></html>`, 'https://store.example/').body!
const squeezed = (element: DomElement) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()

const BOX =
  '<div class="purchase"><p>£38.00</p><p>or 4 payments of £9.50</p><fieldset><legend>Colour</legend><label><input type="radio" name="c">Red</label><label><input type="radio" name="c">Sage</label></fieldset>' +
  '<label>Quantity <input type="number" value="1"></label><button type="submit"><span>Loading...</span><span>Add to basket</span></button><p>In 50 people\'s baskets</p></div>'
const DESCRIPTION = '<p>The Fernside kettle boils a litre in under four minutes on gas or induction, and its spout pours without dripping down the side.</p>'

describe('a buy box', () => {
  it('goes whole: the price, the pickers, the quantity and the button', () => {
    const root = body(`<div class="column"><div class="summary">${BOX}</div></div><section>${DESCRIPTION}</section>`)
    assert.equal(removeBuyBoxes(root), 1)
    const text = squeezed(root)
    assert.ok(text.includes('pours without dripping'), text)
    for (const gone of ['£38.00', '4 payments', 'Sage', 'Quantity', 'Add to basket', '50 people']) assert.ok(!text.includes(gone), `${gone} in: ${text}`)
  })

  it('stops below a heading or a paragraph of prose beside it: the description shares its column', () => {
    for (const beside of ['<h2>Description</h2><p>Boils fast.</p>', DESCRIPTION]) {
      const root = body(`<div class="column">${BOX}${beside}</div>`)
      assert.equal(removeBuyBoxes(root), 1)
      const text = squeezed(root)
      assert.ok(!text.includes('Add to basket') && !text.includes('£38.00'), text)
      assert.ok(text.includes('Boils fast') || text.includes('pours without dripping'), text)
    }
  })

  it('stops below a block of more than 600 characters', () => {
    const specifications = `<ul>${'<li>Enamelled steel body, stay-cool handle</li>'.repeat(16)}</ul>`
    const root = body(`<div class="column">${BOX}${specifications}</div>`)
    removeBuyBoxes(root)
    assert.ok(squeezed(root).includes('stay-cool handle'))
    assert.ok(!squeezed(root).includes('Add to basket'))
  })

  const page = (head: string) =>
    `<!doctype html><html><head><title>Fernside kettle | Hob & Home</title>${head}</head><body><header><a href="/">Hob &amp; Home</a></header><main><h1>Fernside kettle</h1><div class="buy">${BOX}</div>` +
    `<h2>Description</h2>${DESCRIPTION}<p>The handle stays cool, and the whistle lifts off for a quiet morning; the enamel comes in red, sage and slate.</p>` +
    '<h2>Specifications</h2><table><tr><th>Capacity</th><td>1.6 litres</td></tr><tr><th>Material</th><td>Enamelled steel</td></tr></table></main><footer>© Hob &amp; Home</footer></body></html>'

  it('goes from a product page before the content is chosen, in text and markdown', () => {
    for (const format of ['text', 'markdown'] as const) {
      const { text } = extractHtml({ html: page('<meta property="og:type" content="product">'), url: 'https://store.example/p/kettle', format, extract: 'main' })
      assert.ok(text.includes('pours without dripping') && text.includes('Enamelled steel'), text)
      assert.ok(!/£38\.00|4 payments|Colour|Quantity|50 people/.test(text), text)
    }
  })

  it('stays on an article that shows one (readability keeps of it what it keeps)', () => {
    for (const format of ['text', 'markdown'] as const) {
      const { text } = extractHtml({ html: page('<meta property="og:type" content="article">'), url: 'https://store.example/p/kettle', format, extract: 'main' })
      assert.ok(text.includes('Colour'), text)
    }
  })
})
