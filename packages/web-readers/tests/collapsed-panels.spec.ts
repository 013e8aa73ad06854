import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

const FEATURES = [
  'The Summit fire pit burns with a tall bright flame and almost no smoke, thanks to its double wall.',
  'A cone at its centre lights the wood from a single spark, so a fire starts in less than a minute.',
  'Its stand keeps the heat off the ground, so it sits safely on grass, decking or a stone terrace.',
].map((line) => `<p>${line.repeat(2)}</p>`).join('')
const DESCRIPTION = 'From the team that made the first smokeless fire pit comes a taller, brighter and easier fire for evenings with friends.'
const SHIPPING = 'We ship free to most addresses within five working days and take returns for thirty days.'

function shopPage(label: string, text: string): string {
  const data = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Summit Fire Pit', offers: { '@type': 'Offer', price: '549.99', priceCurrency: 'EUR' } })
  const panel = `<div class="accordion-item"><button aria-controls="panel-1">${label}</button><div id="panel-1" class="chakra-collapse" style="overflow:hidden;display:none"><p>${text}</p></div></div>`
  return (
    `<!doctype html><html><head><title>Summit Fire Pit</title><script type="application/ld+json">${data}</script></head><body>` +
    `<main><h1>Summit Fire Pit</h1><div><span>€549.99</span><button>Add to cart</button></div><section>${FEATURES}${panel}</section></main></body></html>`
  )
}

describe("a product's description folded into a hidden panel", () => {
  it('is read when the panel is labelled as the description', () => {
    const { text, metadata } = extractHtml({ html: shopPage('Description', DESCRIPTION), url: 'https://store.example/summit', format: 'text', extract: 'main' })
    assert.equal(metadata.pageType, 'product')
    assert.ok(text.includes('double wall'), text)
    assert.ok(text.includes(DESCRIPTION), text)
  })

  it('is read when the panel is labelled as how to use the product', () => {
    const { text } = extractHtml({ html: shopPage('How to use', DESCRIPTION), url: 'https://store.example/summit', format: 'text', extract: 'main' })
    assert.ok(text.includes(DESCRIPTION), text)
  })

  it("a hidden panel of the shop's shipping stays hidden", () => {
    const { text } = extractHtml({ html: shopPage('Shipping & Returns', SHIPPING), url: 'https://store.example/summit', format: 'text', extract: 'main' })
    assert.ok(text.includes('double wall'), text)
    assert.ok(!text.includes(SHIPPING), text)
  })
})
