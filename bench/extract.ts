/**
 * pnpm bench:extract [--out DIR] [--format text|markdown] [--limit N] [--data DIR]
 *
 * Serves every page of the shared article-extraction benchmark from a loopback
 * server, fetches each through createHttpFetcher (loopback trusted by
 * privateHosts), and prints precision, recall and F1 as the benchmark's README
 * defines them, next to two pipelines in the same run that have no code of
 * ours: bare @mozilla/readability on linkedom (its `textContent` for text,
 * turndown of its content for markdown), the limit of that pipeline's speed;
 * and the whole page passed through turndown. Also median and p95
 * milliseconds per page and their ratios to the bare pipeline, peak RSS (while
 * only our fetches ran, and of the whole run), the
 * main thread's longest event-loop stall while our fetches run
 * (perf_hooks.monitorEventLoopDelay, sampled every millisecond), and F1 on the
 * even- and odd-numbered pages apart (pages sorted by id), so that a rule
 * tuned on one half can be checked on the other.
 *
 * The pages are read into memory before the run, so that disk reads are not
 * charged to the fetcher. A first pass sends every page through the fetcher
 * alone, for its scores and the event-loop figure, which the other
 * pipelines' work on the main thread (a whole DOM per page, and its garbage)
 * would spoil; a second pass times every pipeline page by page in turn, so
 * that changes in the machine's load weigh on all of them alike, in an order
 * shuffled at each page (seeded: the same in every run), so that no pipeline
 * always follows the one whose main-thread garbage it then pays for. `pnpm bench:extract`
 * builds first: the fetcher runs from the packages' compiled dist.
 */
import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { AddressInfo } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { createRequire } from 'node:module'
import { createHttpFetcher } from 'dsh-web-fetch-http'
import type { FetchFormat } from 'dsh-web'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
// turndown, readability and linkedom are dependencies of the readers package, undici of the fetch package, not of the workspace root.
const fromPackage = createRequire(join(root, 'packages/web-readers/package.json'))
const fromFetcher = createRequire(join(root, 'packages/web-fetch-http/package.json'))
const { default: TurndownService } = (await import(pathToFileURL(fromPackage.resolve('turndown')).href)) as { default: new (options?: object) => { turndown(html: string): string; remove(filter: string[]): void } }
const { Readability } = (await import(pathToFileURL(fromPackage.resolve('@mozilla/readability')).href)) as {
  Readability: new (document: unknown) => { parse(): { content: string; textContent: string } | null }
}
const { parseHTML } = (await import(pathToFileURL(fromPackage.resolve('linkedom')).href)) as { parseHTML(html: string): { document: unknown } }
const { request } = (await import(pathToFileURL(fromFetcher.resolve('undici')).href)) as {
  request(url: string, options: { headers: Record<string, string> }): Promise<{ headers: Record<string, string | string[] | undefined>; body: { arrayBuffer(): Promise<ArrayBuffer> } }>
}

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    format: { type: 'string' },
    limit: { type: 'string' },
    data: { type: 'string', default: resolve(root, '../shared/bench/article-extraction') },
    scorer: { type: 'string', default: resolve(root, '../shared/bench/extract-score.mjs') },
  },
})

type Scorer = {
  pageCounts(truth: string, prediction: string): [number, number, number]
  aggregate(counts: [number, number, number][]): { f1: number; precision: number; recall: number }
  stripMarkdown(text: string): string
}
// A clone on its own has no ../shared: say what the run needs instead of a stack trace.
for (const [flag, path, what] of [
  ['--data', join(values.data!, 'ground-truth.json'), 'the article-extraction benchmark (a folder with ground-truth.json and html/*.html.gz)'],
  ['--scorer', values.scorer!, "the benchmark's scorer (extract-score.mjs)"],
] as const) {
  if (existsSync(path)) continue
  console.error(`bench:extract: ${path} does not exist. This run needs ${what}; it looks for the shared benchmark in ../shared/bench beside the clone. Put it there, or pass ${flag} with its path.`)
  process.exit(2)
}
const scorer = (await import(pathToFileURL(values.scorer!).href)) as Scorer

const formats: FetchFormat[] = values.format ? [values.format as FetchFormat] : ['text', 'markdown']
for (const format of formats) {
  if (format !== 'text' && format !== 'markdown') throw new Error(`--format must be text or markdown, not ${format}`)
}

const truth = JSON.parse(await readFile(join(values.data!, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody: string; url: string }>
let ids = (await readdir(join(values.data!, 'html'))).filter((file) => file.endsWith('.html.gz')).map((file) => file.slice(0, -'.html.gz'.length)).sort()
if (values.limit) ids = ids.slice(0, Number(values.limit))

// The pages are served gzip-compressed, as stored, so decompression is on the measured path.
const pages = new Map<string, Buffer>()
for (const id of ids) pages.set(id, await readFile(join(values.data!, 'html', `${id}.html.gz`)))
const server = createServer((req, res) => {
  const id = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\//, '').replace(/\.html$/, '')
  const body = pages.get(id)
  if (!body) {
    res.writeHead(404).end('not found')
    return
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': body.length })
  res.end(body)
})
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], artifactThreshold: Number.MAX_SAFE_INTEGER, cacheTtlMs: 60_000 })
// What a harness without main-content extraction returns: the whole page through turndown, minus scripts and styles.
const baseline = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' })
baseline.remove(['script', 'style', 'noscript'])

interface Row {
  name: string
  counts: [number, number, number][]
  ms: number[]
  failures: string[]
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[index]!
}

async function writeOutput(name: string, id: string, text: string) {
  if (!values.out) return
  const dir = formats.length === 1 && name.startsWith('ours') ? values.out : join(values.out, name)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, `${id}.txt`), text)
}

const rows: Row[] = formats.map((format) => ({ name: `ours-${format}`, counts: [], ms: [], failures: [] }))
const baselineRow: Row = { name: 'baseline-whole-page-turndown', counts: [], ms: [], failures: [] }

/** A page through the fetcher, every part of it (offset paging). */
async function fetchAll(url: string, format: FetchFormat): Promise<string> {
  let text = ''
  let offset: number | undefined = 0
  while (offset !== undefined) {
    const document = await fetcher.fetch({ url, format, maxChars: 100_000, offset }, { signal: new AbortController().signal })
    text += document.text
    offset = document.nextOffset
  }
  return text
}

// One warm-up page so that worker start-up and JIT are not charged to the first page.
await fetcher.fetch({ url: `${base}/${ids[0]}.html`, format: 'text', maxChars: 100_000 }, { signal: new AbortController().signal })

// The main thread's event loop, sampled every millisecond over the whole fetch loop. Scoring and
// writing outputs wait until after it, so the figure is the fetcher's alone. (The histogram is not
// toggled per page: its first sample after enable() would span the whole time it was off.)
const outputs: string[][] = formats.map(() => [])
const loopDelay = monitorEventLoopDelay({ resolution: 1 })
loopDelay.enable()
for (const id of ids) {
  const url = `${base}/${id}.html`
  for (const [index, format] of formats.entries()) {
    const row = rows[index]!
    let text = ''
    try {
      text = await fetchAll(url, format)
    } catch (error) {
      row.failures.push(`${id}: ${(error as Error).message}`)
    }
    outputs[index]!.push(text)
  }
}
loopDelay.disable()
// The process's peak so far, while only the fetcher ran (its workers included); the pipelines timed
// beside it later build whole DOMs on the main thread and raise the whole run's peak.
const oursPeakRssMb = process.resourceUsage().maxRSS / 1024
for (const [index, format] of formats.entries()) {
  const row = rows[index]!
  for (const [position, id] of ids.entries()) {
    const text = outputs[index]![position]!
    await writeOutput(row.name, id, text)
    row.counts.push(scorer.pageCounts(truth[id]!.articleBody, format === 'markdown' ? scorer.stripMarkdown(text) : text))
  }
}

const { gunzipSync } = await import('node:zlib')
// The pipelines with no code of ours, each on the main thread, a page fetched over the same loopback
// (undici, gzip as served) and converted: bare readability on linkedom for each format, then the whole page.
const bareMarkdown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' })
const mainThread: { row: Row; convert(html: string): string; markdown: boolean }[] = [
  ...formats.map((format) => ({
    row: { name: `bare-readability-${format}`, counts: [], ms: [], failures: [] } as Row,
    convert(html: string) {
      const article = new Readability(parseHTML(html).document).parse()
      if (!article) return ''
      return format === 'text' ? article.textContent : bareMarkdown.turndown(article.content)
    },
    markdown: format === 'markdown',
  })),
  { row: baselineRow, convert: (html: string) => baseline.turndown(html), markdown: true },
]
// Timings: a second pass over the pages, each page through every pipeline in turn (ours under a new
// query string, so that the document cache misses), so that the machine's load, which other work on it
// changes from minute to minute, weighs on every pipeline alike and the ratios hold. Whichever pipeline
// runs after another pays for the garbage it left on the main thread (the whole-page baseline leaves the
// most), so the order is shuffled at each page, by a seeded shuffle (the same in every run). Turned by
// one, as it was, each pipeline kept the same predecessor: ours-text always came after the baseline.
const steps: (() => Promise<void>)[] = [
  ...formats.map((format, index) => async () => {
    const started = performance.now()
    await fetchAll(`${base}/${currentId}.html?timing`, format).catch(() => '')
    rows[index]!.ms.push(performance.now() - started)
  }),
  ...mainThread.map(({ row, convert, markdown }) => async () => {
    const started = performance.now()
    let text = ''
    try {
      const response = await request(`${base}/${currentId}.html`, { headers: { 'accept-encoding': 'identity' } })
      const bytes = Buffer.from(await response.body.arrayBuffer())
      const html = response.headers['content-encoding'] === 'gzip' ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8')
      text = convert(html)
    } catch (error) {
      row.failures.push(`${currentId}: ${(error as Error).message}`)
    }
    row.ms.push(performance.now() - started)
    await writeOutput(row.name, currentId, text)
    row.counts.push(scorer.pageCounts(truth[currentId]!.articleBody, markdown ? scorer.stripMarkdown(text) : text))
  }),
]
// A fixed seed: the same orders in every run.
let seed = 0x2545f491
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
let currentId = ids[0]!
for (const id of ids) {
  currentId = id
  const order = steps.map((_, index) => index)
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1))
    ;[order[index], order[other]] = [order[other]!, order[index]!]
  }
  for (const step of order) await steps[step]!()
}
const bareRows = mainThread.slice(0, formats.length).map(({ row }) => row)

const peakRssMb = process.resourceUsage().maxRSS / 1024
const timing = (row: Row) => {
  const sorted = [...row.ms].sort((a, b) => a - b)
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) }
}
const half = (row: Row, parity: number) => scorer.aggregate(row.counts.filter((_, index) => index % 2 === parity)).f1
console.log(`article-extraction benchmark: ${ids.length} pages, served from loopback, fetched through createHttpFetcher`)
console.log(
  `${'extractor'.padEnd(30)} ${'precision'.padStart(9)} ${'recall'.padStart(7)} ${'F1'.padStart(6)} ${'F1 even'.padStart(8)} ${'F1 odd'.padStart(7)} ` +
    `${'median ms'.padStart(10)} ${'p95 ms'.padStart(7)} ${'failed'.padStart(6)}`,
)
for (const row of [...rows, ...bareRows, baselineRow]) {
  const score = scorer.aggregate(row.counts)
  const { median, p95 } = timing(row)
  console.log(
    `${row.name.padEnd(30)} ${score.precision.toFixed(4).padStart(9)} ${score.recall.toFixed(4).padStart(7)} ${score.f1.toFixed(4).padStart(6)} ` +
      `${half(row, 0).toFixed(4).padStart(8)} ${half(row, 1).toFixed(4).padStart(7)} ` +
      `${median.toFixed(1).padStart(10)} ${p95.toFixed(1).padStart(7)} ${String(row.failures.length).padStart(6)}`,
  )
}
for (const [index, row] of rows.entries()) {
  const score = scorer.aggregate(row.counts)
  const ours = timing(row)
  for (const other of [bareRows[index]!, baselineRow]) {
    const theirs = timing(other)
    console.log(
      `ratio ${row.name} / ${other.name}: F1 x${(score.f1 / scorer.aggregate(other.counts).f1).toFixed(3)}, ` +
        `median time x${(ours.median / theirs.median).toFixed(2)}, p95 time x${(ours.p95 / theirs.p95).toFixed(2)}`,
    )
  }
}
console.log(
  `peak RSS while only our fetches ran: ${oursPeakRssMb.toFixed(0)} MB; of the whole run, the other pipelines included: ${peakRssMb.toFixed(0)} MB ` +
    `(targets: text F1 >= 0.975, median and p95 time <= 1.25x bare readability, peak RSS of our fetches <= 400 MB)`,
)
console.log(
  `main-thread event loop during our fetches (sampled every 1 ms): longest stall ${(loopDelay.max / 1e6).toFixed(1)} ms, ` +
    `p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, mean ${(loopDelay.mean / 1e6).toFixed(2)} ms`,
)
for (const row of [...rows, ...bareRows, baselineRow]) for (const failure of row.failures) console.log(`failed (${row.name}): ${failure}`)

await fetcher.close()
server.close()
