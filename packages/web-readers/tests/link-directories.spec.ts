import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

const DESCRIPTION = [
  'A faux leather jacket with a turn-down collar, a zip at the front and a pocket on the chest.',
  'The lining is soft polyester, and the cut is straight and regular, ending at the hips.',
  'Wash it at thirty degrees on a gentle cycle and it keeps its shine for many seasons of wear.',
].map((line) => `<p>${line}</p>`).join('')
const BRANDS = ['Alder', 'Birch Row', 'Cedar & Co', 'Dune', 'Elm Street', 'Fjord', 'Grove', 'Harbour', 'Isle', 'Juniper', 'Kestrel', 'Linden', 'Maple Lane', 'Nook']
const CATEGORIES = ['Backpacks', 'Bomber Jackets', 'Dresses', 'Football Boots', 'Handbags', 'Jeans', "Kids' Shoes", "Men's Chinos", "Men's Coats", 'Necklaces', 'Shirt Dresses', 'Snow Boots', 'Trainers', "Women's Ankle Boots"]
/** A directory under its heading, as a large shop prints it: long enough beside a short product that the usual pruning of link lists leaves it (prune-content.ts). */
const directory = (title: string, names: string[]) => `<div><div><h2>${title}</h2></div><ul>${names.map((name, index) => `<li><a href="/c/${index}/">${name}</a></li>`).join('')}</ul></div>`
const FEATURES = ['Turn-down collar', 'Zip fastening', 'Chest pocket', 'Straight shape', 'Regular fit', 'Long sleeves', 'Normal length', 'Plain pattern', 'Faux leather', 'Polyester lining', 'Hip length', 'Machine washable']

function shopPage(after: string): string {
  const data = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Faux leather jacket', offers: { '@type': 'Offer', price: '49.99', priceCurrency: 'EUR' } })
  return (
    `<!doctype html><html><head><title>Faux leather jacket</title><script type="application/ld+json">${data}</script></head><body>` +
    `<main><h1>Faux leather jacket</h1><div><span>€49.99</span><button>Add to cart</button></div><section>${DESCRIPTION}${after}</section></main></body></html>`
  )
}

describe("a shop's directory of its brands under a product", () => {
  it('goes with its heading when each of its many items is one short link', () => {
    const { text, metadata } = extractHtml({ html: shopPage(directory('More Brands', BRANDS) + directory('More Inspiration', CATEGORIES)), url: 'https://store.example/jacket', format: 'text', extract: 'main' })
    assert.equal(metadata.pageType, 'product')
    assert.ok(text.includes('turn-down collar'), text)
    for (const brand of ['Birch Row', 'Kestrel', 'Maple Lane', 'More Brands', 'Bomber Jackets', 'More Inspiration']) assert.ok(!text.includes(brand), `${brand} in: ${text}`)
  })

  it("a list of the product's features, written without links, stays", () => {
    const list = `<ul>${FEATURES.map((feature) => `<li>${feature}</li>`).join('')}</ul>`
    const { text } = extractHtml({ html: shopPage(list), url: 'https://store.example/jacket', format: 'text', extract: 'main' })
    for (const feature of FEATURES) assert.ok(text.includes(feature), `${feature} in: ${text}`)
  })
})
