import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'
import { workDone } from '../src/html/dom-walk.js'
import { MAX_BREADCRUMBS, MAX_PROPERTY_STEPS, MAX_SCOPES, MAX_SCRIPT_CHARS, MAX_STRING, MAX_TYPES } from '../src/html/structured-data.js'

// What a page states about itself (JSON-LD, microdata, Open Graph) reaches the result's metadata, copied and bounded.
const prose = '<p>A full sentence of page text that a reader came for, long enough to matter for extraction.</p>'.repeat(5)

function metadataOf(head: string, body = `<article>${prose}</article>`) {
  const html = `<html><head><title>Page</title>${head}</head><body>${body}</body></html>`
  return extractHtml({ html, url: 'https://site.example/page', format: 'text', extract: 'main' }).metadata
}

const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`

describe('structured data: JSON-LD', () => {
  it('reads a product and its offer out of an @graph, with the breadcrumbs in position order', () => {
    const metadata = metadataOf(
      ld({
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'BreadcrumbList', itemListElement: [
            { '@type': 'ListItem', position: 2, name: 'Backpacks' },
            { '@type': 'ListItem', position: 1, item: { '@id': '/outdoor', name: 'Outdoor' } },
          ] },
          { '@type': 'Product', name: '  Trail 40\n hiking backpack ', brand: { '@type': 'Brand', name: 'Northway' }, sku: 'TR-40',
            offers: { '@type': 'AggregateOffer', lowPrice: 89.5, priceCurrency: 'EUR', availability: 'https://schema.org/InStock' } },
        ],
      }),
    )
    assert.equal(metadata.pageType, 'product')
    assert.deepEqual(metadata.structured, {
      sources: ['json-ld'],
      types: ['BreadcrumbList', 'ListItem', 'Product', 'Brand', 'AggregateOffer'],
      name: 'Trail 40 hiking backpack',
      product: { name: 'Trail 40 hiking backpack', brand: 'Northway', sku: 'TR-40', price: '89.5', currency: 'EUR', availability: 'InStock' },
      breadcrumbs: ['Outdoor', 'Backpacks'],
    })
  })

  it("reads an article's headline, author and dates; a malformed script states nothing and the next one is still read", () => {
    const metadata = metadataOf(
      '<script type="application/ld+json">{"@type": "NewsArticle", "headline": </script>' +
        ld({ '@type': 'NewsArticle', headline: 'Bridge reopens', author: [{ '@type': 'Person', name: 'Ana Ruiz' }], datePublished: '2026-03-01', dateModified: '2026-03-02' }),
    )
    assert.equal(metadata.pageType, 'article')
    assert.deepEqual(metadata.structured, { sources: ['json-ld'], types: ['NewsArticle', 'Person'], name: 'Bridge reopens', author: 'Ana Ruiz', datePublished: '2026-03-01', dateModified: '2026-03-02' })
  })

  it('is bounded: strings, types and breadcrumbs are cut, an oversized script is not parsed', () => {
    const crumbs = Array.from({ length: 30 }, (_, index) => ({ '@type': 'ListItem', position: index + 1, name: `Level ${index + 1}` }))
    const types = Array.from({ length: 20 }, (_, index) => ({ '@type': `Thing${index}` }))
    const metadata = metadataOf(
      ld({ '@type': 'Article', headline: 'x'.repeat(5000), about: types }) +
        ld({ '@type': 'BreadcrumbList', itemListElement: crumbs }) +
        ld({ '@type': 'Product', name: 'Hidden', description: 'y'.repeat(MAX_SCRIPT_CHARS) }),
    )
    const structured = metadata.structured!
    assert.equal(structured.name!.length, MAX_STRING)
    assert.equal(structured.types.length, MAX_TYPES)
    assert.equal(structured.breadcrumbs!.length, MAX_BREADCRUMBS)
    assert.equal(structured.product, undefined)
    assert.equal(metadata.pageType, 'article')
  })

  it("counts a ProductGroup's variants as one product, and several products as a category page", () => {
    const variant = (sku: string) => ({ '@type': 'Product', sku, offers: { '@type': 'Offer', price: '20.00', priceCurrency: 'USD' } })
    assert.equal(metadataOf(ld({ '@type': 'ProductGroup', name: 'Tee', hasVariant: [variant('a'), variant('b'), variant('c')] })).pageType, 'product')
    assert.equal(metadataOf(ld([variant('a'), variant('b'), variant('c')])).pageType, 'collection')
    assert.equal(metadataOf(ld({ '@type': 'CollectionPage', mainEntity: { '@type': 'ItemList', itemListElement: [variant('a')] } })).pageType, 'collection')
    assert.equal(metadataOf(ld({ '@type': 'SearchResultsPage' })).pageType, 'listing')
    // an ItemList or an OfferCatalog beside one product is a part of its page: its videos, its related items, its variants' offers
    assert.equal(metadataOf(ld(variant('a')) + ld({ '@type': 'ItemList', itemListElement: [{ '@type': 'VideoObject', name: 'Unboxing' }] })).pageType, 'product')
    assert.equal(metadataOf(ld({ ...variant('a'), offers: { '@type': 'OfferCatalog', itemListElement: [{ '@type': 'Offer', price: '20.00' }] } })).pageType, 'product')
    assert.equal(metadataOf(ld({ '@type': 'QAPage', mainEntity: { '@type': 'Question', name: 'Why?' } })).pageType, 'forum')
    assert.equal(metadataOf(ld({ '@type': 'TechArticle', headline: 'Rate limits' })).pageType, 'documentation')
  })
})

describe('structured data: microdata and Open Graph', () => {
  it("reads a microdata product's own properties, not those of the scopes nested in it", () => {
    const body = `<div itemscope itemtype="https://schema.org/Product">
      <h1 itemprop="name">Kettle K2</h1>
      <div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Steamly</span></div>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="GBP"><span itemprop="price" content="34.00">£34</span>
        <link itemprop="availability" href="https://schema.org/OutOfStock"></div>
      <div itemprop="review" itemscope itemtype="https://schema.org/Review"><span itemprop="name">Great kettle</span></div>
      ${prose}</div>`
    const metadata = metadataOf('', body)
    assert.equal(metadata.pageType, 'product')
    assert.deepEqual(metadata.structured, {
      sources: ['microdata'],
      types: ['Product', 'Brand', 'Offer', 'Review'],
      name: 'Kettle K2',
      product: { name: 'Kettle K2', brand: 'Steamly', price: '34.00', currency: 'GBP', availability: 'OutOfStock' },
    })
  })

  it('is linear: a page of thousands of nested scopes, each asked for its properties, is walked about once for them (each scope its own part), MAX_SCOPES scopes read', () => {
    const depth = 3000
    const body = `${'<div itemscope itemtype="https://schema.org/Article"><span>x</span>'.repeat(depth)}<p itemprop="author">Deep Author</p>${prose}${'</div>'.repeat(depth)}`
    const before = workDone.walkSteps
    const metadata = metadataOf('', body)
    const steps = workDone.walkSteps - before
    assert.equal(metadata.pageType, 'article')
    assert.ok(MAX_SCOPES < depth)
    // every walk of the extraction together, on a page of about 9,000 elements: a scope walked into the scopes it holds would make it over 400,000 (held back only by MAX_PROPERTY_STEPS)
    assert.ok(steps < 100_000, `${steps} walk steps`)
    assert.ok(MAX_PROPERTY_STEPS < 400_000)
  })

  it('reads og:type and the product price of Open Graph; a page that states nothing has no structured data', () => {
    const metadata = metadataOf('<meta property="og:type" content="product"><meta property="product:price:amount" content="12.50"><meta property="product:price:currency" content="CAD">')
    assert.equal(metadata.pageType, 'product')
    assert.deepEqual(metadata.structured, { sources: ['opengraph'], types: ['product'], product: { price: '12.50', currency: 'CAD' } })
    const plain = metadataOf('')
    assert.equal(plain.structured, undefined)
    assert.equal(plain.pageType, undefined)
  })

  it('is structured-clone safe (the worker posts it)', () => {
    const metadata = metadataOf(ld({ '@type': 'Product', name: 'Kettle', offers: [{ '@type': 'Offer', price: 3 }] }))
    assert.deepEqual(structuredClone(metadata), metadata)
  })
})
