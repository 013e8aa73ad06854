import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

const page = (head: string, body: string) => `<!doctype html><html><head><title>Air fryer recipes</title>${head}</head><body>${body}</body></html>`
const CHROME = '<header><a href="/">Kitchen Notes</a><nav><a href="/recipes">Recipes</a><a href="/about">About</a><a href="/shop">Shop</a></nav></header>'
const FOOTER = '<footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>'
const INTRO = '<div class="intro"><h1>Air Fryer Recipes</h1><div class="description"><p>Crispy, quick and weeknight-friendly: everything we make in the air fryer, from snacks to whole dinners, tested in our kitchen.</p><p>Start with the chickpeas, then try the salmon bites, which take twelve minutes.</p></div></div>'
const DISHES = ['Crispy Chickpeas', 'Salmon Bites', 'Sweet Potato Fries', 'Chicken Thighs', 'Brussels Sprouts', 'Tofu Nuggets', 'Cauliflower Wings', 'Garlic Potatoes', 'Falafel', 'Pork Chops', 'Zucchini Chips', 'Egg Rolls', 'Fish Tacos', 'Onion Rings', 'Meatballs', 'Apple Chips', 'Green Beans', 'Shrimp Skewers', 'Stuffed Peppers', 'Corn Ribs', 'Tortilla Chips', 'Banana Bread', 'Hash Browns', 'Mozzarella Sticks']
const CARDS = `<div class="results"><div class="grid">${DISHES.map((dish, index) => `<div class="tile"><a href="/recipes/${index}"><img src="/i/${index}.jpg" alt=""><span class="title">${dish}</span></a></div>`).join('')}</div></div>`
const LISTING = page('', `${CHROME}<main>${INTRO}${CARDS}</main>${FOOTER}`)

describe('a page of cards read as its blurb', () => {
  it('keeps the main area, its cards with the introduction, when readability keeps only the introduction (regression: a recipe index read as its two intro lines)', () => {
    const { text, extractor } = extractHtml({ html: LISTING, url: 'https://shop.example/recipes/air-fryer', format: 'text', extract: 'main' })
    assert.match(extractor, /^page-area\+/)
    for (const part of ['weeknight-friendly', 'Crispy Chickpeas', 'Falafel', 'Egg Rolls']) assert.ok(text.includes(part), `"${part}" is missing from:\n${text}`)
    for (const part of ['Kitchen Notes', 'Privacy', 'About']) assert.ok(!text.includes(part), `"${part}" should have been left out of:\n${text}`)
  })

  it('leaves a dated page alone: a story read as its lead is not a page of cards', () => {
    const dated = page('<meta property="article:published_time" content="2026-11-20T10:00:00Z">', `${CHROME}<main>${INTRO}${CARDS}</main>${FOOTER}`)
    const { extractor } = extractHtml({ html: dated, url: 'https://shop.example/recipes/air-fryer', format: 'text', extract: 'main' })
    assert.doesNotMatch(extractor, /^page-area\+/)
  })

  it("leaves a page that declares one product alone: its short description is its content", () => {
    const product = page('<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Air fryer","offers":{"@type":"Offer","price":"89.00","priceCurrency":"USD"}}</script>', `${CHROME}<main>${INTRO}${CARDS}</main>${FOOTER}`)
    const { extractor } = extractHtml({ html: product, url: 'https://shop.example/recipes/air-fryer', format: 'text', extract: 'main' })
    assert.doesNotMatch(extractor, /^page-area\+/)
  })

  it('leaves content that is not a blurb alone: a long text, or one with links', () => {
    const long = `<h1>Air Fryer Recipes</h1>${Array.from({ length: 6 }, () => '<p>Crispy, quick and weeknight-friendly: everything we make in the air fryer, from snacks to whole dinners, tested in our kitchen and written down step by step.</p>').join('')}`
    const { extractor } = extractHtml({ html: page('', `${CHROME}<main>${long}${CARDS}</main>${FOOTER}`), url: 'https://shop.example/recipes/air-fryer', format: 'text', extract: 'main' })
    assert.doesNotMatch(extractor, /^page-area\+/)
  })

  it('leaves a blurb alone when the page has no run of links around it', () => {
    const plain = `${INTRO}${DISHES.slice(0, 4).map((dish) => `<p>${dish} with lemon, a pinch of salt and plenty of pepper, served hot from the basket.</p>`).join('')}`
    const { extractor } = extractHtml({ html: page('', `${CHROME}<main>${plain}</main>${FOOTER}`), url: 'https://shop.example/recipes/air-fryer', format: 'text', extract: 'main' })
    assert.doesNotMatch(extractor, /^page-area\+/)
  })
})
