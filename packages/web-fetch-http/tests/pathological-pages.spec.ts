import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { parseHTML } from 'linkedom'
import { MAX_ELEMENTS, elementLimit } from '../../web-readers/src/html/build-tree.js'
import { SCAN_FACTOR, SharedRuns } from '../../web-readers/src/html/choose-candidate.js'
import { convertBody } from '../../web-readers/src/convert/convert-body.js'
import { workDone } from '../../web-readers/src/html/dom-walk.js'
import type { DomElement } from '../../web-readers/src/html/dom.js'
import { MAX_CHILDREN, boundTree } from '../../web-readers/src/html/flatten-deep.js'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { toPlainText } from '../../web-readers/src/html/to-text.js'
import { type TestServer, fakeLookup, signal, startServer, DIRECT } from './helpers.js'
import { PATHOLOGICAL_PAGES, normalPage } from './pathological-pages.js'

// Each generated page either comes back with its article or ends with the typed error that says what
// was too large. Times and memory are measured by bench/pathological.ts, not asserted here; the
// deadline is raised so that a loaded machine cannot turn an outcome into a timeout.
const ARTICLE_START = '1. The harbour authority confirmed on Tuesday'

describe('pathological pages through the real fetcher on loopback', () => {
  let server: TestServer
  const fetcher = createHttpFetcher({
    env: DIRECT,
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

  it('re-opened formatting: ends with WEB_FETCH_TOO_LARGE naming the element limit of its size (it built a million elements first: 6.5 s, 535 MB)', async () => {
    const error = await fetchKind('re-opened formatting (20,000)').then(
      () => assert.fail('expected a refusal'),
      (caught: unknown) => caught,
    )
    assert.ok(WebError.is(error))
    assert.equal(error.code, 'WEB_FETCH_TOO_LARGE')
    const html = PATHOLOGICAL_PAGES['re-opened formatting (20,000)']!()
    // the limit of its size, not the million of any page: refused after a quarter of the work
    assert.equal(elementLimit(html.length), 10_000 + Math.floor(html.length / 2))
    assert.ok(elementLimit(html.length) < MAX_ELEMENTS / 4)
    assert.match(error.message, new RegExp(`more than ${elementLimit(html.length).toLocaleString('en')} elements from ${html.length.toLocaleString('en')} characters`))
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

// Linear work, counted rather than timed: the walks' steps and the substring checks' scanned
// characters of one conversion, at a size and at twice that size (bench/pathological.ts times them).
describe('work on a page grows with its size', () => {
  const work = (html: string) => {
    workDone.walkSteps = 0
    workDone.scannedChars = 0
    try {
      convertBody({ bytes: Buffer.from(html), kind: 'html', url: 'https://x.test/page', format: 'markdown', extract: 'main', maxElemsToParse: 200_000 })
    } catch (error) {
      if (!WebError.is(error) && (error as { code?: string }).code !== 'WEB_FETCH_TOO_LARGE') throw error
    }
    return { ...workDone }
  }
  const kinds = Object.keys(PATHOLOGICAL_PAGES).filter((name) => name !== 'plain article')
  for (const kind of kinds) {
    it(`${kind}: twice the size, at most 2.2 times the walk steps; scans linear in the page`, () => {
      const [once, twice] = [0.1, 0.2].map((scale) => PATHOLOGICAL_PAGES[kind]!(scale))
      const [small, large] = [work(once!), work(twice!)]
      assert.ok(large.walkSteps <= 2.2 * small.walkSteps + 1000, `${small.walkSteps} steps, then ${large.walkSteps}`)
      assert.ok(large.scannedChars <= 4 * SCAN_FACTOR * twice!.length, `${large.scannedChars} characters scanned`)
    })
  }

  it('an ordinary page of 1 MB: its substring checks stay within SCAN_FACTOR of its size', () => {
    const html = normalPage(1_000_000)
    const done = work(html)
    assert.ok(done.scannedChars <= 4 * SCAN_FACTOR * html.length, `${done.scannedChars} characters scanned`)
  })

  const block = (text: string) => ({ text, linkChars: 0, element: undefined as unknown as DomElement })
  it('checks each distinct run once: 150,000 equal runs outside a 5 KB text scan it once (they scanned it 150,000 times, 718 million characters)', () => {
    const shared = new SharedRuns([block('x'.repeat(5000))])
    assert.equal(shared.share(Array.from({ length: 150_000 }, () => block('Short line.'))), 0)
    assert.equal(shared.scanned, 5000)
  })

  it('stops substring checks at SCAN_FACTOR x (text + runs asked): 4,000 distinct runs against 4,000 others, none the same', () => {
    const mine = Array.from({ length: 4000 }, (_, index) => block(`left run number ${index} of the page`))
    const theirs = Array.from({ length: 4000 }, (_, index) => block(`right run ${index}`))
    const shared = new SharedRuns(mine)
    const text = mine.map((run) => run.text).join('\n').length
    const asked = theirs.reduce((sum, run) => sum + run.text.length, 0)
    assert.equal(shared.share(theirs), 0)
    assert.ok(shared.scanned <= SCAN_FACTOR * (text + asked), `${shared.scanned} scanned, ${SCAN_FACTOR * (text + asked)} allowed (every check would scan ${4000 * text})`)
    // what it does check it gets right: a run inside the text, split differently
    assert.equal(new SharedRuns(mine).has(block('number 7 of the')), true)
  })
})
