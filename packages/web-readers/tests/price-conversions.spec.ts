import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

const DESCRIPTION = [
  'A pendant of hand polished silver hangs from a fine chain, set with a single freshwater pearl.',
  'Each piece is cast and finished by hand in our workshop, so no two pendants are quite the same.',
  'The chain measures forty five centimetres and closes with a lobster clasp that is easy to fasten.',
].map((line) => `<p>${line.repeat(2)}</p>`).join('')
const CONVERSIONS = ['AED', 'GBP', 'AUD', 'KWD', 'CAD'].map((code, index) => `<li><b>${code}</b>: <span>$${(110 + index * 37).toFixed(2)}</span></li>`).join('')
const SIZES = '<ul><li>Small: $120.00</li><li>Medium: $132.00</li><li>Large: $145.00</li></ul>'

function shopPage(lists: string): string {
  const data = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Pearl Pendant', offers: { '@type': 'Offer', price: '132.34', priceCurrency: 'EUR' } })
  return (
    `<!doctype html><html><head><title>Pearl Pendant</title><script type="application/ld+json">${data}</script></head><body>` +
    `<main><h1>Pearl Pendant</h1><div><span>€132.34</span><button>Add to cart</button></div><section>${DESCRIPTION}${lists}</section></main></body></html>`
  )
}

describe("a product's price converted into other currencies", () => {
  it('goes when each item of a list is a currency code and an amount', () => {
    const { text, metadata } = extractHtml({ html: shopPage(`<ul class="price-info">${CONVERSIONS}</ul>`), url: 'https://store.example/pearl-pendant', format: 'text', extract: 'main' })
    assert.equal(metadata.pageType, 'product')
    assert.ok(text.includes('hand polished silver'), text)
    assert.ok(!/AED|KWD|CAD/.test(text), text)
  })

  it("a list of the product's sizes with their prices stays", () => {
    const { text } = extractHtml({ html: shopPage(SIZES), url: 'https://store.example/pearl-pendant', format: 'text', extract: 'main' })
    assert.ok(text.includes('Medium: $132.00'), text)
  })
})
