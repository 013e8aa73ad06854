import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'

// The page type when a page declares none: from its address (a forum's host, a thread's, a product's, a category's or documentation's path) and its structure (code blocks, a control that adds to a cart beside a price, a grid of prices).
const prose = '<p>A full sentence of page text that a reader came for, long enough to matter for extraction here.</p>'.repeat(4)

function judged(body: string, url = 'https://site.example/page', head = '') {
  const html = `<html><head><title>Page</title>${head}</head><body>${body}</body></html>`
  const { pageType, pageTypeFrom } = extractHtml({ html, url, format: 'text', extract: 'main' }).metadata
  return pageType ? `${pageType} (${pageTypeFrom})` : 'none'
}

const snippet = (n: number) => `<pre><code>const client = connect(${n})\nawait client.send({ id: ${n} })</code></pre>`

describe('page type from structure', () => {
  it('code blocks make documentation: two <pre>, or ten <code>; one snippet in a blog post does not', () => {
    assert.equal(judged(`<main><h1>Rate limits</h1>${prose}${snippet(1)}${prose}${snippet(2)}</main>`), 'documentation (structure)')
    const inline = Array.from({ length: 10 }, (_, n) => `<li><code>option${n}</code>: what it sets.</li>`).join('')
    assert.equal(judged(`<main><h1>Options</h1>${prose}<ul>${inline}</ul></main>`), 'documentation (structure)')
    assert.equal(judged(`<article><h1>Why we moved</h1>${prose}${snippet(1)}${prose}</article>`), 'none')
  })

  it('a control that adds to a cart beside a price is one product; a grid of prices is a category of products', () => {
    const product = `<main><h1>Trail 40 backpack</h1><div class="price">$89.50</div><form><button type="submit">Add to cart</button></form>${prose}</main>`
    assert.equal(judged(product), 'product (structure)')
    // an <input type=submit> labels itself with its value
    assert.equal(judged(product.replace('<button type="submit">Add to cart</button>', '<input type="submit" value="Add to bag">')), 'product (structure)')
    const cards = Array.from({ length: 13 }, (_, n) => `<li><a href="/p/${n}">Pack ${n}</a><span>€${40 + n},00</span></li>`).join('')
    assert.equal(judged(`<main><h1>Backpacks</h1><ul>${cards}</ul></main>`), 'collection (structure)')
  })

  it("one basket button beside a carousel of other products' prices is one product where the path names a product (/dp/…), a category elsewhere", () => {
    const others = Array.from({ length: 20 }, (_, n) => `<li><a href="/dp/B0${n}">Headphones ${n}</a><span>$${20 + n}.99</span></li>`).join('')
    const page = `<main><h1>Wireless headphones</h1><div class="price">$39.99</div><form><button type="submit">Add to cart</button></form>${prose}</main><aside><h2>Customers also bought</h2><ul>${others}</ul></aside>`
    assert.equal(judged(page, 'https://store.example/wireless-headphones/dp/B0D1PC8551'), 'product (structure)')
    assert.equal(judged(page), 'collection (structure)')
    assert.equal(judged(page.replace('<form><button type="submit">Add to cart</button></form>', '')), 'collection (structure)')
  })

  it("where the path names a product (/pdp/…), a page with a basket button on each sponsored card beside its own is one product; elsewhere it is a category", () => {
    const sponsored = Array.from({ length: 12 }, (_, n) => `<li><a href="/pdp/chair-${n}.html">Chair ${n}</a><span>$${200 + n}.99</span><button>Add to cart</button><p>Sponsored</p></li>`).join('')
    const page = `<main><h1>Executive chair</h1><div class="price">$659.99</div><button>Add to cart</button>${prose}<ul>${sponsored}</ul></main>`
    assert.equal(judged(page, 'https://store.example/furniture/pdp/executive-chair-bop1026.html'), 'product (structure)')
    assert.equal(judged(page, 'https://store.example/furniture/executive-chairs'), 'collection (structure)')
  })

  it('a category with a basket button on each of its few cards is not one product', () => {
    const cards = Array.from({ length: 4 }, (_, n) => `<li><a href="/p/${n}">Kettle ${n}</a><span>£${30 + n}.00</span><button>Add to basket</button></li>`).join('')
    assert.notEqual(judged(`<main><h1>Kettles</h1><ul>${cards}</ul>${prose}</main>`), 'product (structure)')
  })

  it('a price in a sentence, or a price without a control that buys, makes no product', () => {
    assert.equal(judged(`<article><h1>Budget tents</h1><p>The cheapest one we tried costs $89.50 and kept us dry for a week.</p>${prose}</article>`), 'none')
    assert.equal(judged(`<main><h1>Plans</h1><div>$12</div><div>$24</div>${prose}</main>`), 'none')
  })
})

describe('page type from the address', () => {
  it("a forum's host or a thread's path is a forum", () => {
    assert.equal(judged(`<main>${prose}</main>`, 'https://forum.site.example/some-thread'), 'forum (address)')
    assert.equal(judged(`<main>${prose}</main>`, 'https://site.example/threads/why-is-my-build-slow.12345/'), 'forum (address)')
    assert.equal(judged(`<main>${prose}</main>`, 'https://site.example/viewtopic.php?t=99'), 'forum (address)')
  })

  it("documentation's host or path, a category's path, a product's path, a service's path", () => {
    assert.equal(judged(`<main>${prose}</main>`, 'https://docs.site.example/guides/start'), 'documentation (address)')
    assert.equal(judged(`<main>${prose}</main>`, 'https://site.example/docs/start'), 'documentation (address)')
    assert.equal(judged(`<main>${prose}</main>`, 'https://shop.site.example/collections/mens-socks'), 'collection (address)')
    assert.equal(judged(`<main>${prose}</main>`, 'https://shop.site.example/products/quarter-socks'), 'product (address)')
    assert.equal(judged(`<main>${prose}</main>`, 'https://site.example/services/cloud-migration'), 'service (address)')
  })

  it('a path segment counts only where it names what follows: a page named /products or /t is not one product or one thread', () => {
    assert.equal(judged(`<main>${prose}</main>`, 'https://site.example/products'), 'none')
    assert.equal(judged(`<main>${prose}</main>`, 'https://site.example/t'), 'none')
    assert.equal(judged(`<main>${prose}</main>`, 'https://site.example/blog/why-we-moved'), 'none')
  })
})

describe('what the page declares comes first', () => {
  const tile = (id: string, name: string) => `<div itemscope itemtype="http://schema.org/Product"><meta itemprop="name" content="${name}"><meta itemprop="productID" content="${id}"><a href="/watches/${id}.html">${name}</a><span>$148.00</span></div>`
  const tiles = [tile('28000322', 'Chrono Ceramic'), tile('28000119', 'Coronada Ceramic'), tile('28000200', 'Field')].join('')

  it('several products declared are a category, unless one of them is the page: its id is a word of the path, or its url is the page', () => {
    const own = `<div itemscope itemtype="http://schema.org/Product"><meta itemprop="productID" content="28000436"><h1 itemprop="name">Classic II</h1><span>$168.00</span>${prose}</div>`
    assert.equal(judged(`<header>${tiles}</header><main>${own}</main>`, 'https://watch.example/mens-view-all/moon-silver/28000436.html'), 'product (declared)')
    assert.equal(judged(`<header>${tiles}</header><main>${own}</main>`, 'https://watch.example/mens-view-all/moon-silver'), 'collection (declared)')
    const byUrl = own.replace('<meta itemprop="productID" content="28000436">', '<link itemprop="url" href="/classic-ii/">')
    assert.equal(judged(`<header>${tiles}</header><main>${byUrl}</main>`, 'https://watch.example/classic-ii'), 'product (declared)')
    // a short id, or one without a digit, is a word of many paths by chance
    const short = own.replace('28000436', '436')
    assert.equal(judged(`<header>${tiles}</header><main>${short}</main>`, 'https://watch.example/watches/436'), 'collection (declared)')
  })

  it('a category declared as one stays a category whatever its products name', () => {
    const collection = '<script type="application/ld+json">{"@type":"CollectionPage","name":"Watches"}</script>'
    assert.equal(judged(`<main>${tiles}</main>`, 'https://watch.example/watches/28000322.html', collection), 'collection (declared)')
  })


  it('a declared article on a forum host, or one with code blocks, stays an article', () => {
    const article = '<meta property="og:type" content="article">'
    assert.equal(judged(`<main>${prose}</main>`, 'https://forum.site.example/some-thread', article), 'article (declared)')
    assert.equal(judged(`<main><h1>Rate limits</h1>${prose}${snippet(1)}${snippet(2)}</main>`, 'https://site.example/page', article), 'article (declared)')
  })
})
