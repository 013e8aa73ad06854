import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'
import { htmlParser } from '../src/html/parse-html.js'
import { MAX_CARD_CHARS, MAX_MARKS, removeSponsoredCards } from '../src/html/sponsored-cards.js'
import { assertInOrder, assertNone } from './assert-text.js'

const FEATURES = [
  'The Sharann chair sits on a five-star base of steel with dual casters that roll on carpet and tile alike.',
  'Its seat and back are padded with foam under a vinyl cover, trimmed by hand with antique brass nail heads.',
].map((line) => `<p>${line}</p>`).join('')
const SPECS = '<dl><dt>Seat height</dt><dd>20 to 23 inches</dd><dt>Weight capacity</dt><dd>275 lb</dd><dt>Frame</dt><dd>Manufactured wood</dd><dt>Upholstery</dt><dd>Vinyl over foam</dd></dl>'

/** A tile of another product, as a furniture shop prints a row of them above the product: its name, its price and the mark, no link. */
const card = (name: string, price: string, mark = 'Sponsored') =>
  `<div class="tile"><div class="tile-title"><p>${name}</p></div><div class="tile-pricing"><span>${price}</span> <s>$761.98</s></div><div class="tile-note"><p>${mark}</p></div></div>`

function shopPage(cards: string): string {
  const data = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Sharann Executive Chair', offers: { '@type': 'Offer', price: '273.99', priceCurrency: 'USD' } })
  return (
    `<!doctype html><html><head><title>Sharann Executive Chair</title><script type="application/ld+json">${data}</script></head><body>` +
    `<main><div class="tiles">${cards}</div><h1>Sharann Executive Chair</h1><div><span>$273.99</span><button>Add to cart</button></div><h2>Specifications</h2>${SPECS}<section>${FEATURES}</section></main></body></html>`
  )
}

const read = (html: string) => extractHtml({ html, url: 'https://furniture.example/pdp/sharann-executive-chair.html', format: 'text', extract: 'main' })

describe('sponsored cards on a shop product page', () => {
  it('go, each card with its mark, and the product stays', () => {
    const cards = [card('Vinyl Office Chair', '$659.99'), card('Leather Desk Chair', '$489.00', 'Ad'), card('Mesh Task Chair', '$199.00', 'Promoted')].join('')
    const { text, metadata } = read(shopPage(cards))
    assert.equal(metadata.pageType, 'product')
    assertInOrder(text, ['Specifications', 'Weight capacity', 'five-star base', 'brass nail heads'])
    assertNone(text, ['Vinyl Office Chair', 'Leather Desk Chair', 'Mesh Task Chair', '$659.99', 'Sponsored'])
  })

})

describe('removeSponsoredCards', () => {
  const body = (html: string) => htmlParser.parse(`<html><body><div id="root">${html}</div></body></html>`, 'https://furniture.example/').querySelector('#root')!

  it('takes the largest block around a mark that holds no other mark and at most MAX_CARD_CHARS', () => {
    const root = body(`<section id="row">${card('Vinyl Office Chair', '$659.99')}${card('Mesh Task Chair', '$199.00')}</section><p id="kept">The chair itself.</p>`)
    assert.equal(removeSponsoredCards(root), 2)
    assert.ok(root.querySelector('#row'), 'the row of cards holds two marks: it stays, emptied')
    assert.equal(root.querySelectorAll('.tile').length, 0)
    assert.ok(root.querySelector('#kept'))
  })

  it('a card without the mark stays, and so does the word in a sentence', () => {
    const root = body(`${card('Vinyl Office Chair', '$659.99', 'New')}<p id="sentence">Sponsored by the maker of the chair, this page was written with its designers.</p>`)
    assert.equal(removeSponsoredCards(root), 0)
    assert.equal(root.querySelectorAll('.tile').length, 1)
    assert.ok(root.querySelector('#sentence'))
  })

  it('a block longer than MAX_CARD_CHARS is the page around the mark: only the mark and what is short around it go', () => {
    const long = `<p>${'A long paragraph of the page about the chair. '.repeat(Math.ceil(MAX_CARD_CHARS / 40))}</p>`
    const root = body(`<div id="block">${long}<div id="card"><span>Sponsored</span> <a href="/x">Other chair</a></div></div>`)
    assert.equal(removeSponsoredCards(root), 1)
    assert.ok(root.querySelector('#block'))
    assert.equal(root.querySelector('#card'), null)
  })

  it('is bounded: of a page of ten thousand marks, the first MAX_MARKS are read and go with their cards', () => {
    const root = body(Array.from({ length: 10_000 }, (_, n) => `<div class="c"><span>Ad</span><a href="/p/${n}">Item ${n}</a></div>`).join(''))
    assert.equal(removeSponsoredCards(root), MAX_MARKS)
    assert.equal(root.querySelectorAll('.c').length, 10_000 - MAX_MARKS)
  })
})
