import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'
import { htmlParser } from '../src/html/parse-html.js'
import { MIN_CHARS, removeRepeatedBlocks } from '../src/html/repeated-blocks.js'

const DESCRIPTION = 'A slim wallet of anodized aluminium that holds one to twelve cards and keeps its shape for life.'
const POINTS = ['Ten per cent lighter than the first model, with the same strength.', 'A cash strap and a money clip that swap in seconds.']
const count = (text: string, part: string) => text.split(part).length - 1

/** A store's page that writes its description for phones and for larger screens, both in the markup. */
function productPage(body: string, type = 'Product'): string {
  const data = JSON.stringify({ '@context': 'https://schema.org', '@type': type, name: 'Slim Wallet', headline: 'Slim Wallet' })
  return `<!doctype html><html><head><title>Slim Wallet</title><script type="application/ld+json">${data}</script></head><body>${body}</body></html>`
}

describe('a paragraph said twice on a product page', () => {
  it('is kept once: the second copy of each paragraph of MIN_CHARS or more goes, shorter lines and the first copies stay', () => {
    const document = htmlParser.parse(
      '<!doctype html><html><body><div id="content">' +
        `<div class="mobile"><p>${DESCRIPTION}</p><ul>${POINTS.map((point) => `<li>${point}</li>`).join('')}</ul></div>` +
        `<div class="desktop"><h2>Details</h2><p>${DESCRIPTION.toUpperCase()}</p><ul>${POINTS.map((point) => `<li><b>${point}</b></li>`).join('')}</ul><p>In stock</p><p>In stock</p></div>` +
        '</div></body></html>',
      'https://store.example/',
    )
    const root = document.querySelector('#content')!
    assert.equal(removeRepeatedBlocks(root), 3)
    const text = root.textContent ?? ''
    assert.equal(count(text.toLowerCase(), DESCRIPTION.toLowerCase()), 1)
    for (const point of POINTS) assert.equal(count(text, point), 1, point)
    assert.equal(count(text, 'In stock'), 2, 'a short line may recur')
    assert.equal(count(text, 'Details'), 1)
    assert.ok('In stock'.length < MIN_CHARS)
  })

  it('a block holding others is not compared as a whole: its paragraphs are', () => {
    const document = htmlParser.parse(`<!doctype html><html><body><section><div><p>${DESCRIPTION}</p></div></section></body></html>`, 'https://store.example/')
    assert.equal(removeRepeatedBlocks(document.body!), 0)
    assert.equal(count(document.body!.textContent ?? '', DESCRIPTION), 1)
  })

  const body =
    `<main><h1>Slim Wallet</h1><div class="mobile"><p>${DESCRIPTION}</p><p>${POINTS[0]}</p></div>` +
    `<div class="desktop"><p>${DESCRIPTION}</p><p>${POINTS[0]}</p><p>${POINTS[1]} ${'It is made in one piece and tested for years of daily use. '.repeat(4)}</p></div></main>`

  it('through extraction: a page judged one product says it once; an article keeps what it says twice', () => {
    const product = extractHtml({ html: productPage(body), url: 'https://store.example/wallet', format: 'text', extract: 'main' })
    assert.equal(product.metadata.pageType, 'product')
    assert.equal(count(product.text, DESCRIPTION), 1, product.text)
    assert.equal(count(product.text, POINTS[0]!), 1, product.text)
    const article = extractHtml({ html: productPage(body, 'NewsArticle'), url: 'https://news.example/wallet', format: 'text', extract: 'main' })
    assert.notEqual(article.metadata.pageType, 'product')
    assert.equal(count(article.text, DESCRIPTION), 2, article.text)
  })
})
