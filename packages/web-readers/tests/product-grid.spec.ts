import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

const page = (body: string) => `<!doctype html><html><head><title>Wool socks</title></head><body>${body}</body></html>`
const CHROME = '<header><a href="/">Sock Shop</a><nav><a href="/men">Men</a><a href="/women">Women</a><a href="/sale">Sale</a></nav></header>'
const FOOTER = '<footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>'
const SOCKS = ['Hiking Crew', 'Trail Quarter', 'Ski Over-the-Calf', 'Everyday Ankle', 'Running No-Show', 'Boot Sock', 'Lounge Slipper Sock', 'Compression Knee High']
const GRID = `<div class="products"><h1>Wool Socks</h1><div class="grid">${SOCKS.map((name, index) => `<div class="product-card"><a href="/products/${index}"><img src="/i/${index}.jpg" alt=""><span>${name}</span></a><span class="price">$${18 + index}.00</span></div>`).join('')}</div></div>`
const SEO = `<div class="seo-text"><h2>Why merino wool socks?</h2>${[
  'Merino wool keeps your feet warm in winter and cool in summer, because its fibres trap air when it is cold and wick moisture away when it is hot, which is why hikers, runners and skiers have worn it for decades.',
  'Unlike cotton, merino stays warm when it is damp, resists odour for days of wear, and is soft enough to wear against the skin without itching, so a good pair of socks can be worn on a long trail, washed in a sink and worn again.',
  'Choose a cushioned sole for long walks in boots, a light knit for running shoes, and a taller cuff for skiing, where the sock sits under a stiff boot all day; every pair here is knitted in Portugal and guaranteed for life.',
].map((text) => `<p>${text}</p>`).join('')}</div>`
const CATEGORY = page(`${CHROME}<main>${GRID}${SEO}</main>${FOOTER}`)
const url = 'https://shop.example/collections/wool-socks'

describe("a category of products read as its text for search engines", () => {
  it('keeps the grid of products, names and prices, when readability keeps only the text below it (regression: a shop category read as its buying guide)', () => {
    const { text, extractor } = extractHtml({ html: CATEGORY, url, format: 'text', extract: 'main' })
    assert.match(extractor, /^product-grid\+/)
    for (const part of ['Hiking Crew', '$18.00', 'Compression Knee High', '$25.00']) assert.ok(text.includes(part), `"${part}" is missing from:\n${text}`)
    for (const part of ['Sock Shop', 'Privacy']) assert.ok(!text.includes(part), `"${part}" should have been left out of:\n${text}`)
  })

  it('leaves a page not judged a category alone', () => {
    const { extractor } = extractHtml({ html: CATEGORY, url: 'https://shop.example/guides/wool-socks', format: 'text', extract: 'main' })
    assert.doesNotMatch(extractor, /^product-grid\+/)
  })

  it("leaves long writing alone: a category's own article is its content", () => {
    const long = SEO.replace(/<p>(.*?)<\/p>/g, (_, text: string) => `<p>${text} ${text} ${text} ${text} ${text}</p>`)
    const { extractor } = extractHtml({ html: page(`${CHROME}<main>${GRID}${long}</main>${FOOTER}`), url, format: 'text', extract: 'main' })
    assert.doesNotMatch(extractor, /^product-grid\+/)
  })
})
