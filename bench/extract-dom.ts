/**
 * node --import tsx bench/extract-dom.ts [--limit N]
 *
 * Which tree should readability run on? Runs the fetcher's own extraction
 * (extractHtml: parse, readability, clean-up, text) over every page of the
 * shared article-extraction benchmark with three parsers, each in its own
 * child process (so that peak RSS is its own), on the main thread, and prints
 * F1 (text format) and milliseconds per page side by side:
 * - parse5: production, the standard's tree construction into linkedom nodes;
 * - linkedom: linkedom's own parser (htmlparser2), not the standard's tree;
 * - jsdom: the standard's tree (parse5) in jsdom's DOM.
 * The parse5 process also checks, page by page, that the tree extraction
 * reads is parse5's own (its default tree adapter) less what build-tree.ts
 * leaves out on purpose (tests/standard-tree.ts), and prints the count.
 * jsdom is a devDependency of dsh-web-readers used only here.
 */
import { execFileSync } from 'node:child_process'
import { readFile, readdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { extractHtml } from '../packages/web-readers/src/html/extract-html.js'
import { type HtmlParser, htmlParser } from '../packages/web-readers/src/html/parse-html.js'
import type { DomDocument } from '../packages/web-readers/src/html/dom.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    limit: { type: 'string' },
    data: { type: 'string', default: resolve(root, '../shared/bench/article-extraction') },
    scorer: { type: 'string', default: resolve(root, '../shared/bench/extract-score.mjs') },
  },
})

if (!values.only) {
  const rows: string[] = []
  for (const dom of ['parse5', 'linkedom', 'jsdom']) {
    const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--only', dom, '--data', values.data!, '--scorer', values.scorer!]
    if (values.limit) args.push('--limit', values.limit)
    rows.push(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 }).trim())
  }
  console.log('readability + clean-up + text, main thread, one process per DOM')
  console.log(`${'dom'.padEnd(16)} ${'precision'.padStart(9)} ${'recall'.padStart(7)} ${'F1'.padStart(6)} ${'median ms'.padStart(10)} ${'p95 ms'.padStart(7)} ${'peak RSS MB'.padStart(12)} failed`)
  for (const row of rows) console.log(row.split('\n')[0])
  for (const row of rows) for (const line of row.split('\n').slice(1)) console.log(line)
  process.exit(0)
}

type Scorer = {
  pageCounts(truth: string, prediction: string): [number, number, number]
  aggregate(counts: [number, number, number][]): { f1: number; precision: number; recall: number }
}
const scorer = (await import(pathToFileURL(values.scorer!).href)) as Scorer

let parser: HtmlParser = htmlParser
let closeLast = () => {}
if (values.only === 'linkedom') {
  const { parseHTML } = (await import(pathToFileURL(createRequire(join(root, 'packages/web-readers/package.json')).resolve('linkedom')).href)) as {
    parseHTML(html: string): { document: DomDocument }
  }
  parser = {
    name: 'linkedom',
    parse(html: string) {
      const { document } = parseHTML(html)
      // linkedom makes the first element of a fragment the document element; give it a body.
      return document.body && document.documentElement?.localName === 'html' ? document : parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`).document
    },
  }
} else if (values.only === 'jsdom') {
  const fromPackage = createRequire(join(root, 'packages/web-readers/package.json'))
  const { JSDOM, VirtualConsole } = (await import(pathToFileURL(fromPackage.resolve('jsdom')).href)) as {
    JSDOM: new (html: string, options: { url: string; virtualConsole: unknown }) => { window: { document: unknown; close(): void } }
    VirtualConsole: new () => unknown
  }
  const virtualConsole = new VirtualConsole()
  parser = {
    name: 'jsdom',
    parse(html: string, url: string) {
      const dom = new JSDOM(html, { url, virtualConsole })
      closeLast = () => dom.window.close()
      return dom.window.document as unknown as DomDocument
    },
  }
}

const truth = JSON.parse(await readFile(join(values.data!, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody: string; url: string }>
let ids = (await readdir(join(values.data!, 'html'))).filter((file) => file.endsWith('.html.gz')).map((file) => file.slice(0, -8)).sort()
if (values.limit) ids = ids.slice(0, Number(values.limit))
const counts: [number, number, number][] = []
const ms: number[] = []
let failed = 0
for (const id of ids) {
  const html = gunzipSync(await readFile(join(values.data!, 'html', `${id}.html.gz`))).toString('utf8')
  const started = performance.now()
  let text = ''
  try {
    text = extractHtml({ html, url: truth[id]!.url, format: 'text', extract: 'main', maxElemsToParse: 200_000 }, parser).text
  } catch {
    failed++
  } finally {
    closeLast()
  }
  ms.push(performance.now() - started)
  counts.push(scorer.pageCounts(truth[id]!.articleBody, text))
}
const score = scorer.aggregate(counts)
const peakRssMb = process.resourceUsage().maxRSS / 1024
let sameTrees = 0
if (values.only === 'parse5') {
  // after the timed loop, so that it costs the timings nothing
  const { buildTree } = await import('../packages/web-readers/src/html/build-tree.js')
  const { standardTree, treeLines } = await import('../packages/web-readers/tests/standard-tree.js')
  for (const id of ids) {
    const html = gunzipSync(await readFile(join(values.data!, 'html', `${id}.html.gz`))).toString('utf8')
    const ours = treeLines(buildTree(html).document)
    const standard = standardTree(html)
    if (ours.length === standard.length && ours.every((line, index) => line === standard[index])) sameTrees++
  }
}
ms.sort((a, b) => a - b)
const at = (q: number) => ms[Math.min(ms.length - 1, Math.max(0, Math.ceil(q * ms.length) - 1))]!
console.log(
  `${parser.name.padEnd(16)} ${score.precision.toFixed(4).padStart(9)} ${score.recall.toFixed(4).padStart(7)} ${score.f1.toFixed(4).padStart(6)} ` +
    `${at(0.5).toFixed(1).padStart(10)} ${at(0.95).toFixed(1).padStart(7)} ${peakRssMb.toFixed(0).padStart(12)} ${failed}` +
    (values.only === 'parse5' ? `\nparse5 into linkedom: the tree equals parse5's own on ${sameTrees} of ${ids.length} pages` : ''),
)
