import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

const CLAIMS = [
  'The Volt 5 phone charges from empty to half full in twenty minutes with the charger in its box.',
  'Its camera reads a scene in low light and keeps the detail of faces, leaves and street signs.',
  'A frame of recycled aluminium and glass on both sides keeps it light and strong for years of use.',
].map((claim) => `<p>${claim.repeat(2)}</p>`).join('')
const NOTES = ['Based on lab test conditions with a pre-release model.', 'Charger sold separately in some regions.', 'Results may vary with use and settings.']

function shopPage(notes: string): string {
  const data = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Volt 5', offers: { '@type': 'Offer', price: '699.00', priceCurrency: 'USD' } })
  return (
    `<!doctype html><html><head><title>Volt 5</title><script type="application/ld+json">${data}</script></head><body>` +
    `<main><h1>Volt 5</h1><div><span>$699.00</span><button>Add to cart</button></div><section>${CLAIMS}</section>${notes}</main></body></html>`
  )
}

describe("a maker's notes to the claims on its product page", () => {
  it('go when a block named as disclaimers or footnotes holds a list of them', () => {
    const list = `<div class="bottom-disclaimer"><ol>${NOTES.map((note) => `<li>${note}</li>`).join('')}</ol></div>`
    const { text, metadata } = extractHtml({ html: shopPage(list), url: 'https://store.example/volt-5', format: 'text', extract: 'main' })
    assert.equal(metadata.pageType, 'product')
    assert.ok(text.includes('charges from empty'), text)
    for (const note of NOTES) assert.ok(!text.includes(note), `${note} in: ${text}`)
  })

  it('a single line of conditions, holding no list, stays', () => {
    const line = `<p class="price-disclaimer">${NOTES[0]}</p>`
    const { text } = extractHtml({ html: shopPage(line), url: 'https://store.example/volt-5', format: 'text', extract: 'main' })
    assert.ok(text.includes(NOTES[0]!), text)
  })
})
