/**
 * pnpm bench:render [--limit N] [--data DIR] [--chromium PATH]
 *
 * What rendering costs, and how often `render: auto` would pay it.
 *
 * 1. Static against rendered on the same pages. The first --limit pages
 *    (default 30, sorted by id) of the shared article-extraction benchmark,
 *    served gzip-compressed from a loopback server as stored, and three
 *    script-rendered pages written here (a script that writes the DOM, one
 *    that fetches JSON from its own origin, one that writes after a timer),
 *    each fetched through createHttpFetcher (static) and through
 *    createBrowserFetcher (rendered, Debian's Chromium), both with loopback
 *    trusted by privateHosts, no proxy, and a resolver that answers no name:
 *    the images, styles and scripts the stored pages load from their sites'
 *    hosts are refused at once (and counted), so nothing leaves loopback and
 *    the rendered figures are a floor of what the same pages cost on the
 *    open web, where those loads happen. The two modes are interleaved page
 *    by page, which one goes first alternating, so that the machine's load,
 *    which other work on it changes from minute to minute, weighs on both
 *    alike. Printed: median and p95 milliseconds per page for each mode and
 *    their ratio (rendered / static), and the peak resident memory of the
 *    process tree while each mode's fetches ran: this process (the static
 *    fetcher, its extraction workers and the browser provider's vetting
 *    proxies run in it), Chromium's process group (the browser provider's
 *    pid, from fetcher.status(); every process the browser starts), and any
 *    other child (the static reader's document children), sampled from
 *    /proc/<pid>/status VmRSS every 100 ms and at the end of every fetch.
 *    Shared pages count once per process, so the sums are upper bounds.
 *    Before the timed pages, one page through each fetcher warms them up: the
 *    browser's first launch and first page are reported on their own.
 * 2. Escalation: every page of the shared benchmark (181) through the static
 *    fetcher alone, counting those it reads as `needs_js` (read statically):
 *    exactly the pages a web row with `render: auto` would send to the
 *    renderer (packages/web/src/web-service.ts). They are server-rendered,
 *    so the count should be near zero; their ids are listed. The fixtures
 *    are read the same way as a check that the judge does see a shell.
 *
 * Both fetchers run from the packages' compiled dist (`pnpm bench:render`
 * builds first). Exits 2 when Chromium or the shared benchmark is missing.
 */
import { existsSync } from 'node:fs'
import { readFile, readdir } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, loadavg } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { FetchProvider, FetchedDocument, PageOutcomeKind } from 'dsh-web'
import { createBrowserFetcher } from 'dsh-web-fetch-browser'
import { type HttpFetcherOptions, createHttpFetcher } from 'dsh-web-fetch-http'
import { type TreeRss, readTreeRss } from './support/process-tree-rss.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    limit: { type: 'string', default: '30' },
    data: { type: 'string', default: resolve(root, '../shared/bench/article-extraction') },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
  },
})
const limit = Number(values.limit)
if (!Number.isInteger(limit) || limit < 1) {
  console.error(`bench:render: --limit must be a whole number of pages, 1 or more, not ${values.limit}.`)
  process.exit(2)
}
// Say what the run needs instead of a stack trace from deep inside a fetcher.
for (const [flag, path, what] of [
  ['--data', join(values.data!, 'html'), 'the article-extraction benchmark (a folder with html/*.html.gz)'],
  ['--chromium', values.chromium!, "a Chromium to render with (Debian's: apt-get install -y chromium)"],
] as const) {
  if (existsSync(path)) continue
  console.error(`bench:render: ${path} does not exist. This run needs ${what}; pass ${flag} with its path.`)
  process.exit(2)
}

// The pages a browser is for: their text is written by their scripts, the server sends a shell.
const paragraph = (what: string) => `<p>${what} This sentence is repeated so that the page holds as much text as a short article does.</p>`.repeat(12)
const fixtures: Record<string, { type: string; body: string }> = {
  'writes-dom': {
    type: 'text/html; charset=utf-8',
    body: `<html><head><title>Written by script</title></head><body><div id="root"></div><script>
document.getElementById('root').innerHTML = '<main><h1>Written by script</h1>${paragraph('The page script wrote this paragraph into the DOM.')}</main>'
</script></body></html>`,
  },
  'fetches-json': {
    type: 'text/html; charset=utf-8',
    body: `<html><head><title>Docs</title></head><body><div id="root">Loading…</div><script>
fetch('/fixture/content.json').then((response) => response.json()).then((content) => {
  document.getElementById('root').innerHTML = '<main><h1>' + content.title + '</h1>' + content.html + '</main>'
})
</script></body></html>`,
  },
  'content.json': {
    type: 'application/json',
    body: JSON.stringify({ title: 'Loaded as JSON', html: paragraph('The page fetched this text as JSON from its own origin.') }),
  },
  'after-timer': {
    type: 'text/html; charset=utf-8',
    body: `<html><head><title>Later</title></head><body><div id="root"><noscript>Please enable JavaScript to read this page.</noscript></div><script>
setTimeout(() => { document.getElementById('root').innerHTML = '<main><h1>Written after a timer</h1>${paragraph('A timer wrote this paragraph a little after load.')}</main>' }, 200)
</script></body></html>`,
  },
}
const fixtureIds = ['writes-dom', 'fetches-json', 'after-timer']

const allIds = (await readdir(join(values.data!, 'html'))).filter((file) => file.endsWith('.html.gz')).map((file) => file.slice(0, -'.html.gz'.length)).sort()
if (!allIds.length) {
  console.error(`bench:render: ${join(values.data!, 'html')} holds no *.html.gz pages; pass --data with the article-extraction benchmark's folder.`)
  process.exit(2)
}
// Read into memory before the run, so that disk reads are charged to neither mode.
const pages = new Map<string, Buffer>()
for (const id of allIds) pages.set(id, await readFile(join(values.data!, 'html', `${id}.html.gz`)))
const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://x').pathname
  const fixture = path.startsWith('/fixture/') ? fixtures[path.slice('/fixture/'.length)] : undefined
  if (fixture) return void response.writeHead(200, { 'content-type': fixture.type }).end(fixture.body)
  const body = pages.get(path.replace(/^\//, '').replace(/\.html$/, ''))
  // The browser asks for /favicon.ico, among others: a plain 404.
  if (!body) return void response.writeHead(404).end('not found')
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': body.length }).end(body)
})
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const pageUrl = (id: string) => (fixtureIds.includes(id) ? `${base}/fixture/${id}` : `${base}/${id}.html`)

// The benchmark's pages load images, styles and scripts from their sites' hosts: in this run no name resolves
// (nothing is asked of real DNS, nothing leaves loopback), so those requests are refused at once and counted.
const namesAsked = new Set<string>()
// Typed through the fetcher's options, whichever package the address policy lives in.
const resolveNothing: NonNullable<HttpFetcherOptions['lookup']> = (hostname, _options, callback) => {
  namesAsked.add(hostname)
  queueMicrotask(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []))
}
// Explicit settings, never the machine's proxy variables: both fetchers go direct to the loopback server.
const common = { env: {}, lookup: resolveNothing, privateHosts: ['127.0.0.1'], artifactThreshold: Number.MAX_SAFE_INTEGER }
const staticFetcher = createHttpFetcher(common)
const browser = createBrowserFetcher({ ...common, executablePath: values.chromium! })

type Mode = 'static' | 'rendered'
interface Reading {
  ms: number
  document?: FetchedDocument
  error?: string
}
async function read(fetcher: FetchProvider, url: string): Promise<Reading> {
  const started = performance.now()
  try {
    const document = await fetcher.fetch({ url, format: 'text', maxChars: 100_000 }, { signal: new AbortController().signal })
    return { ms: performance.now() - started, document }
  } catch (error) {
    return { ms: performance.now() - started, error: (error as Error).message }
  }
}
function describeReading(reading: Reading): string {
  if (reading.error) return `failed: ${reading.error}`
  const outcome = reading.document!.outcome
  return `${outcome?.kind ?? 'no outcome'}${outcome?.evidence ? ` (${outcome.evidence})` : ''}, ${reading.document!.text.length} chars`
}

// 2. Escalation, first: the static fetcher alone, before any browser runs.
const outcomes = new Map<string, number>()
const escalated: string[] = []
const staticFailures: string[] = []
for (const id of allIds) {
  const reading = await read(staticFetcher, `${pageUrl(id)}?escalation`)
  if (reading.error) staticFailures.push(`${id}: ${reading.error}`)
  const outcome = reading.document?.outcome
  const kind = reading.error ? 'failed' : (outcome?.kind ?? 'no outcome')
  outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1)
  if (outcome?.kind === 'needs_js' && outcome.readAs === 'static') escalated.push(`${id}${outcome.evidence ? ` (${outcome.evidence})` : ''}`)
}
const fixtureStatic = new Map<string, Reading>()
for (const id of fixtureIds) fixtureStatic.set(id, await read(staticFetcher, `${pageUrl(id)}?escalation`))

// Peak resident memory per mode, sampled while that mode's fetch runs (the browser's first launch apart).
type Phase = Mode | 'first launch'
let current: Phase | undefined
interface Peak extends TreeRss {
  /** The whole tree. */
  total: number
  /** This process and its children outside Chromium's group: all that static fetching holds. */
  withoutBrowser: number
}
const emptyPeak = (): Peak => ({ root: 0, group: 0, others: 0, total: 0, withoutBrowser: 0 })
const peaks: Record<Phase, Peak> = { static: emptyPeak(), rendered: emptyPeak(), 'first launch': emptyPeak() }
function sample() {
  if (!current) return
  const reading = readTreeRss(process.pid, browser.status().pid)
  const peak = peaks[current]
  peak.root = Math.max(peak.root, reading.root)
  peak.group = Math.max(peak.group, reading.group)
  peak.others = Math.max(peak.others, reading.others)
  peak.total = Math.max(peak.total, reading.root + reading.group + reading.others)
  peak.withoutBrowser = Math.max(peak.withoutBrowser, reading.root + reading.others)
}
const sampler = setInterval(sample, 100)
sampler.unref()
const fetchers: Record<Phase, FetchProvider> = { static: staticFetcher, rendered: browser, 'first launch': browser }
async function timed(phase: Phase, url: string): Promise<Reading> {
  current = phase
  const reading = await read(fetchers[phase], url)
  sample()
  current = undefined
  return reading
}

// Warm-up: worker start-up and JIT for the static fetcher; the browser's first launch and first page, reported apart.
await read(staticFetcher, `${pageUrl(fixtureIds[0]!)}?warm-up`)
const firstLaunch = await timed('first launch', `${pageUrl(fixtureIds[0]!)}?warm-up`)
if (firstLaunch.error) {
  console.error(`bench:render: the browser's first page failed: ${firstLaunch.error}`)
  process.exit(1)
}
await read(browser, `${pageUrl(fixtureIds[1]!)}?warm-up`)

// 1. The timed pages, each through both modes in turn, which goes first alternating page by page.
const sampleIds = allIds.slice(0, limit)
const timings: Record<Mode, Map<string, Reading>> = { static: new Map(), rendered: new Map() }
for (const [position, id] of [...sampleIds, ...fixtureIds].entries()) {
  const order: Mode[] = position % 2 === 0 ? ['static', 'rendered'] : ['rendered', 'static']
  // A query string of the run's own, so that neither fetcher's document cache answers from the escalation pass or the warm-up.
  for (const mode of order) timings[mode].set(id, await timed(mode, `${pageUrl(id)}?timed`))
}
clearInterval(sampler)
const launches = browser.status().launches
const refusedBySample = sampleIds.map((id) => timings.rendered.get(id)!.document?.provenance.refused?.count ?? 0)

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}
function summary(mode: Mode, ids: string[]) {
  const sorted = ids.map((id) => timings[mode].get(id)!.ms).sort((a, b) => a - b)
  const kinds = new Map<string, number>()
  for (const id of ids) {
    const reading = timings[mode].get(id)!
    const kind = reading.error ? 'failed' : (reading.document!.outcome?.kind ?? 'no outcome')
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  }
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), kinds: [...kinds].map(([kind, count]) => `${kind} ${count}`).join(', ') }
}
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`
const [load1, load5] = loadavg()

console.log(`render benchmark: ${sampleIds.length} pages of the article-extraction benchmark and ${fixtureIds.length} script-rendered pages, served from loopback; ${cpus().length} cores, load average ${load1!.toFixed(1)} (1 min) ${load5!.toFixed(1)} (5 min) at the end`)
console.log(`browser: ${browser.status().version ?? 'version unknown'}, sandbox ${browser.status().sandbox.enabled ? 'on' : `off (${browser.status().sandbox.reason})`}; first launch and first page ${firstLaunch.ms.toFixed(0)} ms (${describeReading(firstLaunch)}); ${launches} launch${launches === 1 ? '' : 'es'} in the run`)
console.log(`${'pages'.padEnd(22)} ${'mode'.padEnd(9)} ${'median ms'.padStart(10)} ${'p95 ms'.padStart(8)}  outcomes`)
for (const [label, ids] of [[`benchmark sample (${sampleIds.length})`, sampleIds], [`script-rendered (${fixtureIds.length})`, fixtureIds]] as const) {
  const rows = { static: summary('static', ids), rendered: summary('rendered', ids) }
  for (const mode of ['static', 'rendered'] as const) {
    console.log(`${label.padEnd(22)} ${mode.padEnd(9)} ${rows[mode].median.toFixed(1).padStart(10)} ${rows[mode].p95.toFixed(1).padStart(8)}  ${rows[mode].kinds}`)
  }
  console.log(`${label.padEnd(22)} ratio rendered / static: median x${(rows.rendered.median / rows.static.median).toFixed(1)}, p95 x${(rows.rendered.p95 / rows.static.p95).toFixed(1)}`)
}
console.log(
  `requests the sample pages made in the browser beyond the loopback server, refused (no name resolves in this run): ${refusedBySample.reduce((sum, count) => sum + count, 0)} ` +
    `(on ${refusedBySample.filter((count) => count > 0).length} of ${sampleIds.length} pages, at most ${Math.max(...refusedBySample)} on one); ${namesAsked.size} host names asked of the run's resolver`,
)
for (const id of fixtureIds) {
  console.log(`  ${id}: static ${describeReading(fixtureStatic.get(id)!)}; rendered ${timings.rendered.get(id)!.ms.toFixed(0)} ms, ${describeReading(timings.rendered.get(id)!)}`)
}
// Until the browser has started, its pid is unknown and its processes count as other children: the first launch says only its whole tree.
console.log(`peak RSS of the process tree during the first launch and first page: ${mb(peaks['first launch'].total)}`)
console.log(`peak RSS while static fetches ran: ${mb(peaks.static.withoutBrowser)} (this process ${mb(peaks.static.root)}, its other children ${mb(peaks.static.others)}); the idle browser beside them ${mb(peaks.static.group)}`)
console.log(
  `peak RSS while rendered fetches ran: process tree ${mb(peaks.rendered.total)} (this process ${mb(peaks.rendered.root)}, Chromium's process group ${mb(peaks.rendered.group)}, other children ${mb(peaks.rendered.others)}); ` +
    `ratio to static x${(peaks.rendered.total / peaks.static.withoutBrowser).toFixed(1)}`,
)
console.log(
  `escalation: of the ${allIds.length} benchmark pages, the static fetcher read ${escalated.length} as needs_js, which render: auto would render (outcomes: ${[...outcomes].map(([kind, count]) => `${kind} ${count}`).join(', ')})`,
)
for (const id of escalated) console.log(`  would escalate: ${id}`)
for (const failure of staticFailures) console.log(`  static fetch failed: ${failure}`)
for (const mode of ['static', 'rendered'] as const) {
  for (const [id, reading] of timings[mode]) if (reading.error) console.log(`  ${mode} fetch failed: ${id}: ${reading.error}`)
}
// The peak of this process over the whole run, for comparison with bench:extract's figure.
console.log(`this process's own peak RSS over the whole run: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`)

await browser.close()
await staticFetcher.close()
server.close()
