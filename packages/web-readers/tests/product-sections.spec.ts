import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { htmlParser } from '../src/html/parse-html.js'
import { productSections } from '../src/html/product-sections.js'
import type { DomDocument, DomElement } from '../src/html/dom.js'

const page = (html: string): DomDocument => htmlParser.parse(`<!doctype html><html><body>${html}</body></html>`, 'https://store.example/')
const squeezed = (element: DomElement) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()
const list = (items: string[]) => `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`

const SPECIFICATIONS = list(['Flysheet: 20D ripstop nylon', 'Inner: polyester mesh', 'Poles: aluminium, 8.5 mm', 'Packed size: 45 x 15 cm', 'Hydrostatic head: 3000 mm', 'Floor: 210 x 130 cm'])
const FEATURES = list(['Sleeps two, with a porch each side', 'Pitches fly-first in the rain', 'Colour-coded poles and clips', 'Two doors and two vents'])

describe("a product's sections", () => {
  it("are the blocks their titles open, in the page's order, without the suggestions and reviews inside them", () => {
    const document = page(
      `<nav><a href="/tents">Tents</a></nav><div><h3>Features</h3>${FEATURES}</div><p>Free delivery over £50.</p>` +
        `<div class="tabs"><h3>Specifications:</h3>${SPECIFICATIONS}<div class="reviews"><p>Kept us dry in Wasdale.</p></div></div>` +
        `<section><h2>You may also like</h2>${list(['Tarn 3 tent', 'Footprint'])}</section>`,
    )
    const content = document.createElement('div')
    content.innerHTML = '<p>Found a lower price? Tell us where.</p>'
    const block = productSections(document.body!, content, document)
    assert.ok(block)
    const text = squeezed(block)
    assert.ok(text.indexOf('Pitches fly-first') < text.indexOf('Hydrostatic head'), text)
    for (const gone of ['Free delivery', 'Tents', 'Wasdale', 'You may also like', 'Tarn 3']) assert.ok(!text.includes(gone), `${gone} in: ${text}`)
  })

  it('are not taken when they hold less than twice the content, or there are none', () => {
    const document = page(`<div><h3>Specifications</h3>${SPECIFICATIONS}</div>`)
    const content = document.createElement('div')
    content.innerHTML = `<p>${'The Tarn 2 is a light tent for two, pitched fly-first so the inner stays dry. '.repeat(3)}</p>`
    assert.equal(productSections(document.body!, content, document), undefined)
    const none = page('<div><h3>Our shops</h3><p>Keswick, Ambleside, Kendal.</p></div>')
    assert.equal(productSections(none.body!, content, none), undefined)
  })

  it('are titled as a whole: a sentence or a longer heading that mentions features is not a title', () => {
    const document = page(`<div><h3>Features we love in a two-person tent for the fells</h3>${FEATURES}${SPECIFICATIONS}</div><p>Features: see below.</p>`)
    const content = document.createElement('div')
    content.innerHTML = '<p>Found a lower price?</p>'
    assert.equal(productSections(document.body!, content, document), undefined)
  })
})
