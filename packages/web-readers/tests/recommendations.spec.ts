import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'
import { htmlParser } from '../src/html/parse-html.js'
import { removeSuggestions } from '../src/html/recommendations.js'
import type { DomElement } from '../src/html/dom.js'

const body = (html: string): DomElement => htmlParser.parse(`<!doctype html><html><body>${html}</body></html>`, 'https://store.example/').body!
const squeezed = (element: DomElement) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()

const DESCRIPTION = '<p>The Harbour jacket is cut from waxed cotton, with a corduroy collar and two hand-warmer pockets lined in fleece.</p><table><tr><th>Outer</th><td>100% cotton</td></tr><tr><th>Lining</th><td>100% polyester</td></tr></table>'
const card = (name: string, price: string) => `<li><article><a href="/p/${name.toLowerCase().replace(/\W+/g, '-')}"><img alt="${name}" src="/i.jpg"><p>${name}</p></a><p>${price}</p><button>Select your size</button></article></li>`
const CARDS = `<ul>${card('Field jacket in olive', '£89.00')}${card('Quilted gilet, navy', '£59.00')}${card('Rain shell, yellow', '£45.00')}</ul>`

describe("a store's suggestions", () => {
  it('go with the block their title opens, cards and all, even when the cards are <article>s and not all links', () => {
    const root = body(`<div class="product"><h1>Harbour jacket</h1>${DESCRIPTION}</div><div class="reco"><div class="head"><h2><span>You may also like</span></h2><a href="/more">See more</a></div>${CARDS}</div>`)
    assert.equal(removeSuggestions(root), 1)
    const text = squeezed(root)
    assert.ok(text.includes('corduroy collar') && text.includes('100% polyester'), text)
    for (const gone of ['You may also like', 'See more', 'Field jacket', '£59.00', 'Select your size']) assert.ok(!text.includes(gone), `${gone} in: ${text}`)
  })

  it("go under a shop's other titles for them: featured products, the seller's other items, more from this brand, sponsored items", () => {
    for (const title of ['Featured Products', "Seller's other items", 'More from this brand', 'Sponsored products']) {
      const root = body(`<div class="product"><h1>Harbour jacket</h1>${DESCRIPTION}</div><section><h2>${title}</h2>${CARDS}</section>`)
      assert.equal(removeSuggestions(root), 1, title)
      assert.equal(squeezed(root).includes('Quilted gilet'), false, title)
    }
  })

  it('take only their title from a block with text before it (the product and its suggestions in one block)', () => {
    const root = body(`<div class="product"><h1>Harbour jacket</h1>${DESCRIPTION}<h3>Frequently bought together</h3><p>Wax tin, 200 ml</p></div>`)
    assert.equal(removeSuggestions(root), 1)
    assert.equal(squeezed(root).includes('Frequently bought together'), false)
    assert.ok(squeezed(root).includes('Wax tin, 200 ml') && squeezed(root).includes('corduroy collar'))
  })

  it('are titles only: a sentence that starts so, a title in a link, a title longer than a heading', () => {
    const sentence = '<p>You may also like the olive version, which has the same collar.</p>'
    const root = body(`<h1>Harbour jacket</h1>${sentence}<div><h2>Similar items to the Harbour jacket that we stock in the spring and the autumn</h2><p>Nothing yet.</p></div>`)
    assert.equal(removeSuggestions(root), 0)
    const linked = body(`<h1>Harbour jacket</h1>${DESCRIPTION}<section><h2><a href="/similar">Similar items</a></h2>${CARDS}</section>`)
    assert.equal(removeSuggestions(linked), 1)
    assert.equal(squeezed(linked).includes('Rain shell'), false)
  })

  it('never take the headline, the main area or an article that holds them', () => {
    const root = body(`<article><h2>Related products</h2><h1>Harbour jacket</h1>${DESCRIPTION}</article><main><div><h2>Related products</h2></div>${DESCRIPTION}</main>`)
    assert.equal(removeSuggestions(root), 2)
    const text = squeezed(root)
    assert.equal(text.includes('Related products'), false)
    assert.ok(text.includes('Harbour jacket') && text.split('corduroy collar').length === 3, text)
  })

  it('go from what the extraction returns, whichever candidate it chose', () => {
    const html = `<!doctype html><html><head><title>Harbour jacket | Coast Co</title></head><body><main><h1>Harbour jacket</h1>${DESCRIPTION}${DESCRIPTION.replace('Harbour jacket is', 'jacket is')}<section><h2>Complete the look</h2>${CARDS}</section></main></body></html>`
    for (const format of ['text', 'markdown'] as const) {
      const { text } = extractHtml({ html, url: 'https://store.example/p/harbour', format, extract: 'main' })
      assert.ok(text.includes('corduroy collar'), text)
      assert.ok(!/Complete the look|Quilted gilet|£45\.00/.test(text), text)
    }
  })
})
