import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { extractHtml } from '../../web-readers/src/html/extract-html.js'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, fakeLookup, signal, startServer, DIRECT } from './helpers.js'
import { textsOf, visibleText } from '../../web-readers/tests/standard-tree.js'

// Pages whose markup is broken in the ways real pages are. What each should yield is derived from
// the standard's tree construction alone (parse5 with its own tree, no code of ours): the visible
// text of the body for `extract: 'full'`, and every paragraph of the article for `extract: 'main'`.
const directory = new URL('./fixtures/malformed/', import.meta.url)
const pages = readdirSync(directory)
  .filter((name) => name.endsWith('.html'))
  .map((name) => ({ name: name.slice(0, -5), html: readFileSync(new URL(name, directory), 'utf8') }))
const STANDARD = pages.filter((page) => page.name !== 'react-streaming' && page.name !== 'short-lines')

/** Compared without white space and list markers, which only the layout adds or drops. */
const squash = (text: string) => text.replace(/^- /gm, '').replace(/\s+/g, '')
const URL_OF = 'https://news.test/story'

describe('malformed markup: what a browser shows is what extraction reads', () => {
  for (const { name, html } of STANDARD) {
    it(`${name}: extract full returns the body's visible text`, () => {
      const output = extractHtml({ html, url: URL_OF, format: 'text', extract: 'full' })
      assert.equal(squash(output.text), squash(visibleText(html)))
    })

    it(`${name}: extract main returns every paragraph of the article`, () => {
      const output = extractHtml({ html, url: URL_OF, format: 'text', extract: 'main' })
      assert.match(output.extractor, /^readability/)
      const paragraphs = textsOf(html, 'p').filter((text) => text.length > 100)
      assert.ok(paragraphs.length >= 4, 'the fixture has its article')
      for (const paragraph of paragraphs) assert.ok(squash(output.text).includes(squash(paragraph)), `missing: ${paragraph.slice(0, 60)}`)
    })
  }

  it('react-streaming: a streamed segment replaces its boundary\'s fallback, as $RC would, and one no script moves is shown', () => {
    const { html } = pages.find((page) => page.name === 'react-streaming')!
    const full = extractHtml({ html, url: URL_OF, format: 'text', extract: 'full' }).text
    const main = extractHtml({ html, url: URL_OF, format: 'text', extract: 'main' })
    assert.match(main.extractor, /^readability/)
    for (const paragraph of textsOf(html, 'p').filter((text) => text.length > 100)) {
      assert.ok(squash(main.text).includes(squash(paragraph)), `missing: ${paragraph.slice(0, 60)}`)
      assert.ok(squash(full).indexOf(squash(paragraph)) < squash(full).indexOf('HarbourTimesfooterline'), 'the segment sits where the boundary was')
    }
    assert.doesNotMatch(full, /Loading the story now/)
    assert.match(full, /Streamed related note that no script moves/)
  })

  it('short-lines: a page made only of short lines comes back whole, not as no readable text', () => {
    const { html } = pages.find((page) => page.name === 'short-lines')!
    const output = extractHtml({ html, url: URL_OF, format: 'text', extract: 'main' })
    for (const item of [...textsOf(html, 'li'), ...textsOf(html, 'dd')]) assert.ok(output.text.includes(item), `missing: ${item}`)
  })

  it('the corpus covers every failure class', () => {
    const names = pages.map((page) => page.name).sort()
    assert.deepEqual(names, [
      'between-head-and-body', 'body-before-head-end', 'misnested-inline-block', 'react-streaming', 'script-end-without-gt',
      'short-lines', 'stray-end-tags', 'text-after-html', 'title-without-head', 'unclosed-table-cells',
    ])
  })
})

describe('malformed markup through the real fetcher on loopback', () => {
  let server: TestServer
  const fetcher = createHttpFetcher({ env: DIRECT, lookup: fakeLookup({ 'news.test': ['127.0.0.1'] }), privateHosts: ['news.test'] })
  before(async () => {
    server = await startServer((request, response) => {
      const page = pages.find((candidate) => `/${candidate.name}` === request.url)
      response.setHeader('content-type', 'text/html; charset=utf-8')
      response.end(page?.html ?? 'not found')
    })
  })
  after(async () => {
    await fetcher.close()
    await server.close()
  })

  for (const { name, html } of pages.filter((page) => page.name !== 'short-lines')) {
    it(`${name}: the article comes back whole`, async () => {
      const document = await fetcher.fetch({ url: `http://news.test:${server.port}/${name}`, format: 'text' }, { signal: signal() })
      for (const paragraph of textsOf(html, 'p').filter((text) => text.length > 100)) assert.ok(squash(document.text).includes(squash(paragraph)), `missing: ${paragraph.slice(0, 60)}`)
    })
  }

  it('short-lines: the specification comes back without a warning', async () => {
    const document = await fetcher.fetch({ url: `http://news.test:${server.port}/short-lines`, format: 'markdown' }, { signal: signal() })
    assert.match(document.text, /- Width 120 mm\n- Height 80 mm/)
    assert.deepEqual(document.warnings, [])
  })
})
