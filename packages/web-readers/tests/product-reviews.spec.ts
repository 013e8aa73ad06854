import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'
import { htmlParser } from '../src/html/parse-html.js'
import { removeReviews } from '../src/html/product-reviews.js'
import type { DomElement } from '../src/html/dom.js'

const body = (html: string): DomElement => htmlParser.parse(`<!doctype html><html><body>${html}</body></html>`, 'https://store.example/').body!
const squeezed = (element: DomElement) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()

const DESCRIPTION =
  '<h2>Description</h2><p>The Fernside kettle boils a litre in under four minutes on gas or induction, and its spout pours without dripping down the side.</p>' +
  '<p>The handle stays cool, and the whistle can be lifted off for a quiet morning.</p>' +
  '<h2>Specifications</h2><table><tr><th>Capacity</th><td>1.6 litres</td></tr><tr><th>Material</th><td>Enamelled steel</td></tr><tr><th>Hobs</th><td>Gas, electric, induction</td></tr></table>'
const review = (who: string, said: string) => `<div class="entry"><p>${who}</p><p>5 out of 5</p><p>${said}</p><button>Helpful (3)</button></div>`
const REVIEWS = review('Tom, Hexham', 'Boils fast and looks the part on an old range.') + review('Ada, Leith', 'The whistle is loud enough to hear from the garden.')

describe("a product's reviews and questions", () => {
  it('go with the block their title opens; the description and the specifications stay', () => {
    const root = body(`<div>${DESCRIPTION}</div><section><h2>Customer reviews (2)</h2><p>4.5 out of 5</p>${REVIEWS}</section><div><h3>Questions &amp; answers</h3><p>Q: Does it work on induction? A: Yes.</p></div>`)
    assert.equal(removeReviews(root), 2)
    const text = squeezed(root)
    assert.ok(text.includes('pours without dripping') && text.includes('Enamelled steel'), text)
    for (const gone of ['Customer reviews', 'Hexham', 'whistle is loud', 'Helpful', 'Questions & answers', 'Does it work on induction']) assert.ok(!text.includes(gone), `${gone} in: ${text}`)
  })

  it('go when their markup names them, whatever their title (a star count)', () => {
    const root = body(`<div>${DESCRIPTION}</div><div class="reviews-widget"><h2>4.5 ★★★★★ (2)</h2>${REVIEWS}</div>`)
    assert.equal(removeReviews(root), 1)
    assert.ok(!squeezed(root).includes('Hexham'))
    assert.ok(squeezed(root).includes('Enamelled steel'))
  })

  it('stay when they come first (a tab label above the description) or are all there is', () => {
    const label = body(`<h3>Reviews (2)</h3><div>${DESCRIPTION}</div>`)
    assert.equal(removeReviews(label), 0)
    assert.ok(squeezed(label).includes('pours without dripping'))
    const only = body(`<p>Fernside kettle</p><section class="reviews"><h2>Reviews</h2>${REVIEWS}${REVIEWS}${REVIEWS}</section>`)
    assert.equal(removeReviews(only), 0, 'less than a page would be left: the reviews are the content')
    assert.ok(squeezed(only).includes('Hexham'))
  })

  it('are titles only: a sentence about reviews, a longer heading', () => {
    const root = body(`<div>${DESCRIPTION}</div><p>Reviews from our testers are below the photographs.</p><h2>Reviews of stovetop kettles we have tested over the years in our kitchen</h2><p>Eleven kettles.</p>`)
    assert.equal(removeReviews(root), 0)
  })

  const page = (head: string) =>
    `<!doctype html><html><head><title>Fernside kettle | Hob & Home</title>${head}</head><body><header><a href="/">Hob &amp; Home</a></header><main><h1>Fernside kettle</h1><p class="price">£38.00</p>` +
    `${DESCRIPTION}<section id="reviews"><h2>Reviews</h2>${REVIEWS}${REVIEWS}</section></main><footer>© Hob &amp; Home</footer></body></html>`

  it('go from a page that declares a product, in text and markdown', () => {
    for (const format of ['text', 'markdown'] as const) {
      const { text, metadata } = extractHtml({ html: page('<meta property="og:type" content="product">'), url: 'https://store.example/p/kettle', format, extract: 'main' })
      assert.equal(metadata.pageType, 'product')
      assert.ok(text.includes('pours without dripping') && text.includes('Enamelled steel'), text)
      assert.ok(!/Hexham|whistle is loud|Reviews/.test(text), text)
    }
  })

  it("stay on an article, and on a page that declares a product but sells nothing (a firm's testimonials): the rule is for a shop's product pages", () => {
    const unsold = page('<meta property="og:type" content="product">').replace('<p class="price">£38.00</p>', '')
    for (const html of [page('<meta property="og:type" content="article">'), unsold]) {
      for (const format of ['text', 'markdown'] as const) {
        const { text } = extractHtml({ html, url: 'https://store.example/p/kettle', format, extract: 'main' })
        assert.ok(text.includes('whistle is loud'), text)
      }
    }
  })
})
