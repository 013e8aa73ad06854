import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { parseHTML } from 'linkedom'
import { MAX_CHILDREN, boundTree } from '../src/flatten-deep.js'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { toPlainText } from '../src/to-text.js'
import { type TestServer, fakeLookup, signal, startServer } from './helpers.js'
import { PATHOLOGICAL_PAGES } from './pathological-pages.js'

// Each generated page either comes back with its article or ends with the typed error that says what
// was too large. Times and memory are measured by bench/pathological.ts, not asserted here; the
// deadline is raised so that a loaded machine cannot turn an outcome into a timeout.
const ARTICLE_START = '1. The harbour authority confirmed on Tuesday'

describe('pathological pages through the real fetcher on loopback', () => {
  let server: TestServer
  const fetcher = createHttpFetcher({
    lookup: fakeLookup({ 'huge.test': ['127.0.0.1'] }),
    privateHosts: ['huge.test'],
    maxBytes: 8 * 1024 * 1024,
    extractTimeoutMs: 120_000,
    timeoutMs: 180_000,
  })
  const kinds = Object.keys(PATHOLOGICAL_PAGES)
  before(async () => {
    server = await startServer((request, response) => {
      const kind = kinds[Number(request.url!.slice(1))]!
      response.setHeader('content-type', 'text/html; charset=utf-8')
      response.end(PATHOLOGICAL_PAGES[kind]!())
    })
  })
  after(async () => {
    await fetcher.close()
    await server.close()
  })
  const fetchKind = (kind: string) => fetcher.fetch({ url: `http://huge.test:${server.port}/${kinds.indexOf(kind)}`, format: 'text', maxChars: 20_000 }, { signal: signal() })

  for (const kind of kinds.filter((name) => !name.startsWith('re-opened'))) {
    it(`${kind}: finishes with the article's text`, async () => {
      const document = await fetchKind(kind)
      assert.ok(document.text.includes(ARTICLE_START), document.text.slice(0, 200))
    })
  }

  it('re-opened formatting: ends with WEB_FETCH_TOO_LARGE naming the element limit', async () => {
    const error = await fetchKind('re-opened formatting (20,000)').then(
      () => assert.fail('expected a refusal'),
      (caught: unknown) => caught,
    )
    assert.ok(WebError.is(error))
    assert.equal(error.code, 'WEB_FETCH_TOO_LARGE')
    assert.match(error.message, /more than 1,000,000 elements/)
  })

  it('nested blocks: says that deep parts were flattened', async () => {
    const document = await fetchKind('nested blocks (60,000 deep)')
    assert.match(document.warnings.join(' '), /nests elements more than 256 levels deep/)
  })
})

describe('wide parents are regrouped', () => {
  const body = (html: string) => parseHTML(`<html><body>${html}</body></html>`).document.body as never
  const count = MAX_CHILDREN * 2 + 5
  const words = (text: string) => text.replace(/\s+/g, ' ')

  it('splits a wide list into lists, keeping the numbering of an ordered one', () => {
    const root = body(`<ol>${Array.from({ length: count }, (_, index) => `<li>item ${index + 1}</li>`).join('')}</ol>`)
    const before = words(toPlainText(root))
    assert.equal(boundTree(root).grouped, 1)
    const lists = (root as { querySelectorAll(selector: string): ArrayLike<{ children: ArrayLike<unknown>; getAttribute(name: string): string | null }> }).querySelectorAll('ol')
    assert.deepEqual(Array.from(lists, (list) => [list.children.length, list.getAttribute('start')]), [[MAX_CHILDREN, null], [MAX_CHILDREN, String(MAX_CHILDREN + 1)], [5, String(2 * MAX_CHILDREN + 1)]])
    assert.equal(words(toPlainText(root)), before, 'the same lines, a blank line between the parts')
  })

  it('puts the children of any other wide element into groups, in order, and leaves table rows alone', () => {
    const root = body(`<div id="wide">${'<p>line</p>'.repeat(count)}</div><table><tr>${'<td>c</td>'.repeat(count)}</tr></table>`)
    const before = toPlainText(root)
    assert.equal(boundTree(root).grouped, 1)
    const wide = (root as { querySelector(selector: string): { children: ArrayLike<{ children: ArrayLike<unknown> }> } }).querySelector('#wide')
    assert.deepEqual(Array.from(wide.children, (group) => group.children.length), [MAX_CHILDREN, MAX_CHILDREN, 5])
    assert.equal((root as { querySelector(selector: string): { children: ArrayLike<unknown> } }).querySelector('tr').children.length, count)
    assert.equal(toPlainText(root), before)
  })
})
