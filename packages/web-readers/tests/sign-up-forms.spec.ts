import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

const DESCRIPTION = [
  'A true original, the Wool Runner pairs soft merino wool with a light and springy sole for every day.',
  'The wool keeps feet warm in winter and cool in summer, and it stays fresh through long days of walking.',
  'Take out the insoles and laces and the shoes go in the washing machine on a cold and gentle cycle.',
].map((line) => `<p>${line.repeat(2)}</p>`).join('')
const SIGN_UP = [
  'Limited colours sell out fast, but new ones are never far behind, so leave your address with us.',
  'You can opt out at any time from the link at the foot of every message we send.',
]

function shopPage(field: string): string {
  const data = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Wool Runner', offers: { '@type': 'Offer', price: '110.00', priceCurrency: 'USD' } })
  const form = `<div class="notify"><h3>Notify me when back in stock</h3><p>${SIGN_UP[0]}</p><form>${field}<button>Sign up</button></form><p>${SIGN_UP[1]}</p></div>`
  return (
    `<!doctype html><html><head><title>Wool Runner</title><script type="application/ld+json">${data}</script></head><body>` +
    `<main><h1>Wool Runner</h1><div><span>$110.00</span><button>Add to cart</button></div><section>${form}${DESCRIPTION}</section></main></body></html>`
  )
}

describe("a request for the reader's e-mail on a shop's product page", () => {
  it('goes with the lines around its field', () => {
    const { text, metadata } = extractHtml({ html: shopPage('<input type="email" placeholder="Your email">'), url: 'https://store.example/wool-runner', format: 'text', extract: 'main' })
    assert.equal(metadata.pageType, 'product')
    assert.ok(text.includes('merino wool'), text)
    for (const line of [...SIGN_UP, 'Notify me']) assert.ok(!text.includes(line), `${line} in: ${text}`)
  })

  it('a block around another field (a quantity) stays', () => {
    const { text } = extractHtml({ html: shopPage('<input type="number" name="quantity">'), url: 'https://store.example/wool-runner', format: 'text', extract: 'main' })
    assert.ok(text.includes(SIGN_UP[1]!), text)
  })
})
