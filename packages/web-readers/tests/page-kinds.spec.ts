import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { describe, it } from 'node:test'
import type { FetchFormat } from 'dsh-web'
import { extractHtml } from '../src/html/extract-html.js'
import { assertInOrder, assertNone } from './assert-text.js'

// Pages that are not articles: every main block stays, in order, and the chrome goes.
const fixture = (name: string) => readFile(new URL(`./fixtures/${name}.html`, import.meta.url), 'utf8')

async function extract(name: string, format: FetchFormat = 'text') {
  return extractHtml({ html: await fixture(name), url: 'https://site.example/page', format, extract: 'main' })
}


describe("the page's own headline", () => {
  it('is the metadata title (the header line) when the first <h1> is the title or one of its parts', async () => {
    assert.equal((await extract('page-forum-thread')).metadata.title, 'Boiler pressure drops overnight')
    assert.equal((await extract('page-product')).metadata.title, 'Trail 40 hiking backpack')
    assert.equal((await extract('page-docs-nav')).metadata.title, 'Rate limits')
  })

  it('is not a logo: an <h1> that is the site name or a link home leaves the title alone', () => {
    const article = '<p>A full sentence of article text that a reader came for, long enough to matter here.</p>'.repeat(6)
    for (const logo of ['<h1><a href="/">Coastal Courier</a></h1>', '<h1>Coastal Courier</h1>']) {
      const html = `<html><head><title>Bridge reopens | Coastal Courier</title><meta property="og:site_name" content="Coastal Courier"></head><body>${logo}<article>${article}</article></body></html>`
      const { metadata } = extractHtml({ html, url: 'https://site.example/a', format: 'text', extract: 'main' })
      assert.notEqual(metadata.title, 'Coastal Courier')
    }
  })
})

describe('pages of many blocks keep every main block, in order, and drop the chrome', () => {
  for (const format of ['text', 'markdown'] as const) {
    it(`a forum thread: the title, every post with its author and date (${format})`, async () => {
      const { text } = await extract('page-forum-thread', format)
      assertInOrder(text, [
        'Boiler pressure drops overnight',
        'kettle', '14 March 2024 at 21:02', 'Every morning the pressure gauge', 'Could the expansion vessel be the cause',
        'radiant', '14 March 2024 at 21:40', 'Check the pressure relief valve pipe',
        'kettle', 'the copper pipe by the back door is wet',
        'gasman', 'lost its air charge', 'replace the relief valve too',
        'kettle', 'the pressure has held at 1.4 bar',
      ])
      assertNone(text, ['Report', 'Reply', 'Similar threads', 'Combi boiler losing pressure', 'Terms and rules', 'Log in', 'Register', 'Members', 'Next'])
    })

    it(`a thread whose posts are named comments: every post, not an empty page (${format})`, async () => {
      const { text } = await extract('page-comment-thread', format)
      assertInOrder(text, [
        'crumb', '2 May 2024', 'smelled sharply of nail varnish',
        'levain', 'the yeast has run out of food',
        'oven', 'beside the radiator',
        'crumb', '4 May 2024', 'bake my first loaf at the weekend',
      ])
      assertNone(text, ['Boards', 'Log in', 'Terms and rules', 'Privacy'])
    })

    it(`a service page whose markup names only its introduction: every section, not the introduction alone (${format})`, async () => {
      const { text } = await extract('page-service-sections', format)
      assertInOrder(text, [
        'from the first survey to the final commissioning visit',
        'A survey of your home', 'free of charge',
        'Choosing the right system', 'collector loops or a borehole',
        'Installation and commissioning', 'weather compensation curve',
        'Grants and aftercare', 'seven days a week',
      ])
      assertNone(text, ['About us', 'Contact', 'Privacy', 'Terms'])
    })

    it(`a landing page whose readability choice is one section (its testimonials): every section, in order, without the site's chrome (${format})`, async () => {
      const { text, extractor } = await extract('page-service-landing', format)
      assert.match(extractor, /^page-sections\+/)
      assertInOrder(text, [
        'Books that close themselves', 'ready without a spreadsheet', 'Start a free trial',
        'Everything a small firm', 'Bank feeds', 'arrives overnight', 'Invoice chasing', 'Quarterly returns', 'filed when you approve it',
        'What our customers say', 'the tidiest she has seen', 'Priya Raman', 'awkward telephone calls', 'with time to spare', 'Ana Lopes',
        'Questions we are often asked', 'Can I move my existing books across?', 'the open invoices', 'Who can see my figures?', 'invited for free',
        'One price, every feature', 'cancel whenever you like',
      ])
      assertNone(text, ['Product', 'Customers', 'Log in', 'Privacy', 'Terms', 'Careers'])
    })

    it(`questions and answers: the question, every answer and its code (${format})`, async () => {
      const { text } = await extract('page-questions-answers', format)
      assertInOrder(text, [
        'I committed a file by mistake', '3 Answers',
        'Use a soft reset', 'git reset --soft HEAD~1', 'Your changes are then staged again',
        'use a mixed reset instead', 'git restore --staged',
      ])
      assertNone(text, ['Hot network questions', 'Why is my cat afraid', 'Undo a git merge', 'Log in', 'Sign up', 'Site design', 'Tags'])
    })

    it(`search results: every result, its title and snippet (${format})`, async () => {
      const { text } = await extract('page-search-results', format)
      const titles = ['Sourdough starter from scratch', 'Rye sourdough starter', 'Sourdough discard crackers', 'How to revive a neglected starter', 'Gluten-free brown rice starter']
      const snippets = ['Flour and water, fed twice a day', 'Whole rye flour ferments faster', 'Thin, crisp crackers', 'left in the fridge for weeks', 'Brown rice flour and a little psyllium']
      assertInOrder(text, titles.flatMap((title, index) => [title, snippets[index]!]))
      if (format === 'text') assert.match(text, /^- Sourdough starter from scratch$/m, "a list item's dash goes on its first line, here inside a heading")
      assertNone(text, ['Under 30 minutes', '4 stars and up', 'Next page', 'Subscribe', 'My account', 'Get a new recipe every week', 'Contact'])
    })

    it(`a product page that declares nothing, known by its <h1>, price and basket button: features, description and specifications, not its reviews (${format})`, async () => {
      const { text, metadata } = await extract('page-product', format)
      // judged one product's page from its structure (page-type.ts): a basket button beside its price
      assert.deepEqual([metadata.pageType, metadata.pageTypeFrom], ['product', 'structure'])
      assertInOrder(text, [
        '£89.00', '40 litres, with a separate sleeping-bag compartment', 'Weighs 1.3 kg',
        'The Trail 40 is a pack for long day walks', 'Two side pockets take a litre bottle each',
        'Volume', '40 l', 'Recycled polyester, 420 denier',
      ])
      assertNone(text, ['Customer reviews', 'Comfortable over 25 km', 'Used it for a three-day hut trip', 'Customers also bought', 'Trekking poles', 'Free delivery', 'Find a store', 'Add to basket', 'Basket (0)', 'Cookie settings', 'Returns'])
    })

    it(`a product page whose description readability keeps alone: the product's block, name, price and specifications with it (${format})`, async () => {
      const { text, extractor, metadata } = await extract('page-product-tabs', format)
      assert.equal(metadata.pageType, 'product')
      assert.match(extractor, /^product-block\+/)
      assertInOrder(text, ['Harbour 2 kayak paddle', '£74.00', 'Two-piece, 220 cm', 'Length', '220 cm', 'Guarantee', 'The Harbour 2 is a touring paddle', 'floats if you drop it'])
      assertNone(text, ['You may also like', 'Paddle float', 'Tidewater Outfitters', 'Basket', 'Returns'])
    })

    it(`the same page titled for search, its <h1> the product's name alone: the product's block, found by the <h1> (${format})`, async () => {
      const html = (await fixture('page-product-tabs')).replace(
        '<title>Harbour 2 kayak paddle – Tidewater Outfitters</title>',
        '<title>Touring kayak paddle, two-piece, glass-reinforced blades, 220 cm – Tidewater Outfitters</title>',
      )
      const { text, extractor, metadata } = extractHtml({ html, url: 'https://site.example/page', format, extract: 'main' })
      assert.notEqual(metadata.title, 'Harbour 2 kayak paddle')
      assert.match(extractor, /^product-block\+/)
      assertInOrder(text, ['Two-piece, 220 cm', 'Length', '220 cm', 'Guarantee', 'The Harbour 2 is a touring paddle', 'floats if you drop it'])
    })

    it(`the same page declaring no product keeps readability's choice: the rule is for product pages only (${format})`, async () => {
      const html = (await fixture('page-product-tabs')).replace(/<meta property="og:type"[^>]*>|<script type="application\/ld\+json">.*?<\/script>/gs, '')
      const { text, extractor, metadata } = extractHtml({ html, url: 'https://site.example/page', format, extract: 'main' })
      assert.equal(metadata.pageType, undefined)
      assert.match(extractor, /^readability@/)
      assertNone(text, ['£74.00', 'Guarantee'])
    })

    it(`a product page whose prose is a price-feedback box: its titled sections, not the box, the buy box or the reviews (${format})`, async () => {
      const { text, extractor } = await extract('page-product-sections', format)
      assert.match(extractor, /^product-sections\+/)
      assertInOrder(text, ['Features', 'Sleeps two, with a porch each side', 'Reflective guy lines', 'Specifications', 'Flysheet: 20D ripstop nylon', 'Minimum weight: 1.7 kg', 'In the box', 'Repair sleeve'])
      assertNone(text, ['Found a lower price', 'Seen it cheaper', '£240.00', 'Add to basket', 'Customer reviews', 'Wasdale', 'Fellside'])
    })

    it(`a store page beside its review filter: the description, not the filter's labels (${format})`, async () => {
      // readability counts each comma for a block: a filter of counts with thousands separators outscores the prose (choice-menus.ts)
      const { text } = await extract('page-game-store', format)
      assertInOrder(text, ['KEEP THE LIGHT', 'You tend the last lighthouse', 'MEND AND GATHER', 'Repair the lens one prism at a time', 'READ THE SEA'])
      assertNone(text, ['All Languages', 'Very Positive', '220,031', 'Add to cart'])
    })

    it(`a message board whose posts the markup does not name: every post, not the longest alone (${format})`, async () => {
      const { text, extractor } = await extract('page-message-board', format)
      assert.match(extractor, /^markup-list\+/)
      assertInOrder(text, [
        'crumbly', '2 May 2024, 08:14', 'they spread flat and collapse in the oven',
        'levainlou', 'That sounds like overproofing',
        'oldbaker', 'Flour a finger and press it gently', 'cut the hydration to 70 percent',
        'crumbly', '3 May 2024, 19:30', 'The fridge did it',
      ])
      assertNone(text, ['Log in', 'Join', 'Other threads', 'Rye starter smells of nail varnish', 'Rules', 'Privacy'])
    })

    it(`documentation with navigation: every heading, paragraph, list and code block (${format})`, async () => {
      const { text } = await extract('page-docs-nav', format)
      assertInOrder(text, [
        'Every API key may make 100 requests per second', 'Reading the headers', 'three headers that tell you where you stand',
        'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retrying', 'Retry-After',
        'HTTP/1.1 429 Too Many Requests', 'Batch endpoints count as one request',
      ])
      assertNone(text, ['Quickstart', 'Idempotency', 'On this page', 'Was this page helpful', '← Webhooks', 'Pagination →', 'Changelog', 'Privacy'])
    })
  }
})

describe('a page whose content sits in a <form> (a forum thread in its moderation form, an ASP.NET page in its one form)', () => {
  const posts = ['The pump hums at night but the pressure holds, which it did not before the new valve went in.', 'Mine did the same until I bled the top radiator; the hum went away the same evening for good.', 'Thanks both, bleeding the radiators fixed it and the gauge has stayed at 1.5 bar all week now.']
  const html = `<html><head><title>Pump hums at night</title></head><body><header><a href="/">Home</a></header>
    <form action="inline-mod/post/switch" method="post"><ol id="messageList">${posts
      .map((post, index) => `<li id="post-${index}"><div class="author">member${index}</div><article><blockquote>${post} ${'More of what this member wrote about the heating system and what they tried. '.repeat(3)}</blockquote></article><input type="checkbox" name="posts[]"><button>Select for moderation</button></li>`)
      .join('')}</ol></form><footer>Terms and rules</footer></body></html>`

  for (const format of ['text', 'markdown'] as const) {
    it(`keeps every post, without the form's controls (${format})`, () => {
      const { text } = extractHtml({ html, url: 'https://site.example/threads/1', format, extract: 'main' })
      assertInOrder(text, posts)
      assertNone(text, ['Select for moderation'])
    })
  }
})
