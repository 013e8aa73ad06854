import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

const DESCRIPTION = [
  'The Staple tee is cut in a regular fit from mid weight combed cotton that stays soft wash after wash.',
  'Ribbing at the neck, side seams and double needle hems keep its shape for years of wear and printing.',
  'It comes in more than seventy colours, from bone and ecru to navy, cobalt and a deep forest green.',
].map((line) => `<p>${line.repeat(2)}</p>`).join('')
const FIELDS: [string, string][] = [
  ['cat_thumb_Navy', 'https://cdn.store.example/thumbs/navy.jpg'],
  ['cat_thumb_Bone', 'https://cdn.store.example/thumbs/bone.jpg'],
  ['section_btn_label', 'View range'],
  ['section_btn_url', '/men/staple/'],
  ['order_grid_stock_limit', '10000'],
  ['SKU', '5001'],
]
const SPECS: [string, string][] = [
  ['Fit', 'Regular'],
  ['Fabric', 'Mid weight combed cotton'],
  ['Construction', 'Side seamed, double needle hems'],
  ['Care', 'Machine wash cold'],
]

function shopPage(list: [string, string][]): string {
  const data = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Staple Tee', offers: { '@type': 'Offer', price: '20.00', priceCurrency: 'USD' } })
  const dl = `<dl>${list.map(([term, value]) => `<dt>${term}:</dt><dd>${value}</dd>`).join('')}</dl>`
  return (
    `<!doctype html><html><head><title>Staple Tee</title><script type="application/ld+json">${data}</script></head><body>` +
    `<main><h1>Staple Tee</h1><div><span>$20.00</span><button>Add to cart</button></div><section>${DESCRIPTION}</section>${dl}</main></body></html>`
  )
}

describe("the fields of a shop's theme printed under its product", () => {
  it('go when most terms of a definition list are machine names', () => {
    const { text, metadata } = extractHtml({ html: shopPage(FIELDS), url: 'https://store.example/staple-tee', format: 'text', extract: 'main' })
    assert.equal(metadata.pageType, 'product')
    assert.ok(text.includes('regular fit from mid weight'), text)
    assert.ok(!text.includes('cat_thumb_Navy'), text)
    assert.ok(!text.includes('order_grid_stock_limit'), text)
  })

  it("a list of the product's specifications, named in words, stays", () => {
    const { text } = extractHtml({ html: shopPage(SPECS), url: 'https://store.example/staple-tee', format: 'text', extract: 'main' })
    for (const [term, value] of SPECS) assert.ok(text.includes(term) && text.includes(value), `${term} in: ${text}`)
  })
})
