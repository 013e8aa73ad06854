/**
 * pnpm bench:wcxb [--data DIR] [--limit N] [--type TYPE] [--out DIR]
 *
 * The WCXB development split (../shared/bench/wcxb-dev: 1,358 pages of seven
 * page types, articles to listings and service pages) through our fetcher,
 * scored with the benchmark's own metric as its README states it: word-level
 * F1 per page (lower-cased `\w+` tokens as multisets; an empty reference
 * scores 1 only against an empty prediction, an empty prediction 0), the mean
 * over pages overall and per page type, and the snippet rates (the share of
 * `with` snippets the output contains, the share of `without` snippets it
 * does not). Beside ours (text, and markdown with the markup stripped), bare
 * @mozilla/readability on linkedom in the same run: the baseline every row's
 * ratio is taken against. Also the pages where ours scores more than 0.3
 * below the baseline (that count must go down, never up), the median
 * milliseconds per page of ours, and, with --out, one JSON row per page
 * (`pages.jsonl`) so that a change's wins and losses can be diffed
 * (`pnpm bench:wcxb-diff BEFORE AFTER`).
 * Ours is scored on what web_fetch gives the model as the page's content: a
 * page the tool does not show as content (outcomeError: a wall, or a shell
 * without the page's text) is no content; how many
 * were, and how many of them had a reference text, is reported.
 *
 * Pages are served gzip-compressed from 127.0.0.1, as stored, and fetched
 * through createHttpFetcher with loopback trusted; `pnpm bench:wcxb` builds
 * first. `pnpm bench:extraction` runs bench:extract and this one in turn.
 */
import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { type HttpFetcherOptions, createHttpFetcher } from 'dsh-web-fetch-http'
import type { FetchFormat, PageType, PageTypeBasis } from 'dsh-web'
// the tool's own test of a page that was fetched but not read (a wall, a shell without the page's text): one policy, not a copy
import { outcomeError } from '../packages/tool-web/src/render-fetch.js'
import { snippetRates, wordF1 } from './support/word-f1.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(root, '../shared/bench/wcxb-dev') },
    scorer: { type: 'string', default: resolve(root, '../shared/bench/extract-score.mjs') },
    limit: { type: 'string' },
    type: { type: 'string' },
    out: { type: 'string' },
  },
})

for (const [flag, path, what] of [
  ['--data', join(values.data!, 'metadata.json'), 'the WCXB development split (a folder with metadata.json, html/ and ground-truth/)'],
  ['--scorer', values.scorer!, "the shared benchmark's scorer (extract-score.mjs), for its markdown stripping"],
] as const) {
  if (existsSync(path)) continue
  console.error(`bench:wcxb: ${path} does not exist. This run needs ${what}; it looks in ../shared/bench beside the clone. Put it there, or pass ${flag} with its path.`)
  process.exit(2)
}

/** A dependency of the fetch provider's packages (not of the workspace root), from whichever package holds it. */
function fromPackages(name: string): string {
  for (const folder of ['web-readers', 'web-fetch-http']) {
    const manifest = join(root, 'packages', folder, 'package.json')
    if (!existsSync(manifest)) continue
    try {
      return pathToFileURL(createRequire(manifest).resolve(name)).href
    } catch {}
  }
  throw new Error(`bench:wcxb: ${name} is not installed with the fetch provider's packages; run the install first.`)
}
const { Readability } = (await import(fromPackages('@mozilla/readability'))) as { Readability: new (document: unknown) => { parse(): { textContent: string } | null } }
const { parseHTML } = (await import(fromPackages('linkedom'))) as { parseHTML(html: string): { document: unknown } }
const { stripMarkdown } = (await import(pathToFileURL(values.scorer!).href)) as { stripMarkdown(text: string): string }

interface Truth {
  /** main_content is null on two pages of the split: scored as an empty reference. */
  ground_truth: { main_content: string | null; with?: string[]; without?: string[] }
}
const metadata = JSON.parse(await readFile(join(values.data!, 'metadata.json'), 'utf8')) as { page_types: string[]; files: Record<string, { page_type: string; spa?: boolean }> }
let ids = (await readdir(join(values.data!, 'html')))
  .filter((file) => file.endsWith('.html.gz'))
  .map((file) => file.slice(0, -'.html.gz'.length))
  .filter((id) => metadata.files[id] && (!values.type || metadata.files[id]!.page_type === values.type))
  .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b))
if (values.limit) ids = ids.slice(0, Number(values.limit))
if (!ids.length) {
  console.error(`bench:wcxb: no page${values.type ? ` of type "${values.type}" (types: ${metadata.page_types.join(', ')})` : ''} in ${values.data}.`)
  process.exit(2)
}

// ---------------------------------------------------------------- the run

const pages = new Map<string, Buffer>()
for (const id of ids) pages.set(id, await readFile(join(values.data!, 'html', `${id}.html.gz`)))
/**
 * Each page is fetched at its own address (the ground truth's `url`), over
 * http on the server's port, with every name resolved to 127.0.0.1: the
 * reader sees the host and the path the page was crawled at, as it would in
 * use (the page type is judged from them too, page-type.ts). A page without
 * an address, or whose address another page has, is served at /<id>.
 */
const server = createServer((request, response) => {
  const host = (request.headers.host ?? '').replace(/:\d+$/, '')
  const id = byAddress.get(`${host}${request.url ?? '/'}`) ?? new URL(request.url ?? '/', 'http://x').pathname.replace(/^\//, '').replace(/\.html$/, '')
  const body = pages.get(id)
  if (!body) return void response.writeHead(404).end('not found')
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': body.length })
  response.end(body)
})
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
const port = (server.address() as AddressInfo).port
const addressOf = new Map<string, string>()
const byAddress = new Map<string, string>()
for (const id of ids) {
  const crawled = ((JSON.parse(await readFile(join(values.data!, 'ground-truth', `${id}.json`), 'utf8')) as { url?: string }).url ?? '').trim()
  let address = `http://127.0.0.1:${port}/${id}.html`
  try {
    const url = new URL(crawled)
    const key = `${url.hostname}${url.pathname}${url.search}`
    if (/^https?:$/.test(url.protocol) && !byAddress.has(key)) {
      byAddress.set(key, id)
      address = `http://${url.hostname}:${port}${url.pathname}${url.search}`
    }
  } catch {}
  addressOf.set(id, address)
}
// every name answers 127.0.0.1, and each is trusted by name (privateHosts trusts exactly what it names: the address does not trust the names)
const everyNameToLoopback: NonNullable<HttpFetcherOptions['lookup']> = (_hostname, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }])
const hosts = [...new Set([...byAddress.keys()].map((key) => new URL(addressOf.get(byAddress.get(key)!)!).hostname))]
const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1', ...hosts], lookup: everyNameToLoopback, artifactThreshold: Number.MAX_SAFE_INTEGER, env: {} })

/**
 * Every part of a page through the fetcher (offset paging), scored on what
 * web_fetch gives the model as the page's content: a page the tool does not
 * show as content (outcomeError: a wall, its text withheld, or a shell
 * without the page's text, which the tool says is not the page's) is no
 * content, an empty prediction. Right on a page whose reference is empty
 * too; a page with a reference judged so scores 0, and both are counted in
 * the report. A page over the fetcher's maxBytes is read again with
 * allowPartial, its first part, as the error tells the model to (counted);
 * any other failure is an empty prediction, counted.
 */
async function ours(
  id: string,
  format: FetchFormat,
  allowPartial = false,
): Promise<{ text: string; ms: number; failed?: string; notContent?: string; partial?: true; judged?: { type: PageType; from?: PageTypeBasis } }> {
  const started = performance.now()
  let text = ''
  let offset: number | undefined = 0
  let judged: { type: PageType; from?: PageTypeBasis } | undefined
  try {
    while (offset !== undefined) {
      const document = await fetcher.fetch({ url: addressOf.get(id)!, format, maxChars: 100_000, offset, ...(allowPartial ? { allowPartial } : {}) }, { signal: new AbortController().signal })
      if (outcomeError(document)) return { text: '', ms: performance.now() - started, notContent: document.outcome!.kind }
      if (offset === 0 && document.metadata?.pageType) judged = { type: document.metadata.pageType, from: document.metadata.pageTypeFrom }
      text += document.text
      offset = document.nextOffset
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'WEB_FETCH_TOO_LARGE' && !allowPartial) return { ...(await ours(id, format, true)), partial: true }
    return { text: '', ms: performance.now() - started, failed: (error as Error).message }
  }
  return { text, ms: performance.now() - started, ...(judged ? { judged } : {}) }
}

/** Bare readability's text; where it throws on a page (linkedom's DOM is not a browser's), an empty prediction, counted. */
let readabilityFailures = 0
function readability(id: string): string {
  try {
    const article = new Readability(parseHTML(gunzipSync(pages.get(id)!).toString('utf8')).document).parse()
    return article?.textContent ?? ''
  } catch {
    readabilityFailures++
    return ''
  }
}

interface PageRow {
  id: string
  type: string
  spa: boolean
  f1: { text: number; markdown: number; readability: number }
  with: { text?: number; readability?: number }
  without: { text?: number; readability?: number }
  ms: number
  failed?: string
  /** Over the fetcher's maxBytes: read again with allowPartial, its first part. */
  partial?: true
  /** The page type the reader judged, and from what (undefined: nothing told). */
  judged?: { type: PageType; from?: PageTypeBasis }
  /** The outcome of a page judged not content (outcomeError), and whether its reference is empty. */
  notContent?: { outcome: string; emptyReference: boolean }
}

// One warm-up page so that worker start-up and JIT are not charged to the first page.
await ours(ids[0]!, 'text')
const rows: PageRow[] = []
for (const id of ids) {
  if (rows.length && rows.length % 200 === 0) process.stderr.write(`bench:wcxb: ${rows.length} of ${ids.length} pages\n`)
  const truth = (JSON.parse(await readFile(join(values.data!, 'ground-truth', `${id}.json`), 'utf8')) as Truth).ground_truth
  const reference = truth.main_content ?? ''
  const text = await ours(id, 'text')
  const markdown = await ours(id, 'markdown')
  const bare = readability(id)
  const textRates = snippetRates(truth, text.text)
  const bareRates = snippetRates(truth, bare)
  rows.push({
    id,
    type: metadata.files[id]!.page_type,
    spa: metadata.files[id]!.spa === true,
    f1: { text: wordF1(reference, text.text), markdown: wordF1(reference, stripMarkdown(markdown.text)), readability: wordF1(reference, bare) },
    with: { text: textRates.with, readability: bareRates.with },
    without: { text: textRates.without, readability: bareRates.without },
    ms: text.ms,
    ...(text.judged ? { judged: text.judged } : {}),
    ...(text.failed ? { failed: text.failed } : {}),
    ...(text.partial ? { partial: true as const } : {}),
    ...(text.notContent ? { notContent: { outcome: text.notContent, emptyReference: !reference.trim() } } : {}),
  })
}
await fetcher.close()
server.close()

// ---------------------------------------------------------------- the report

const mean = (numbers: (number | undefined)[]) => {
  const present = numbers.filter((value): value is number => value !== undefined)
  return present.length ? present.reduce((sum, value) => sum + value, 0) / present.length : NaN
}
const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b)
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : NaN
}
const f = (value: number) => (Number.isNaN(value) ? '  -  ' : value.toFixed(3))

const groups: [string, PageRow[]][] = [['all', rows], ...metadata.page_types.map((type) => [type, rows.filter((row) => row.type === type)] as [string, PageRow[]]).filter(([, group]) => group.length)]
console.log(`WCXB dev: ${rows.length} pages${values.type ? ` of type ${values.type}` : ''} (word-level F1, mean over pages; ratio = ours-text / readability)`)
console.log('type           pages  ours-text  ours-md  readability  ratio  with(ours/bare)  without(ours/bare)  lost>0.3')
for (const [type, group] of groups) {
  const text = mean(group.map((row) => row.f1.text))
  const bare = mean(group.map((row) => row.f1.readability))
  const lost = group.filter((row) => row.f1.text < row.f1.readability - 0.3).length
  console.log(
    `${type.padEnd(14)} ${String(group.length).padStart(5)}  ${f(text).padStart(9)}  ${f(mean(group.map((row) => row.f1.markdown))).padStart(7)}  ${f(bare).padStart(11)}  ${(text / bare).toFixed(2).padStart(5)}  ` +
      `${`${f(mean(group.map((row) => row.with.text)))}/${f(mean(group.map((row) => row.with.readability)))}`.padStart(15)}  ` +
      `${`${f(mean(group.map((row) => row.without.text)))}/${f(mean(group.map((row) => row.without.readability)))}`.padStart(18)}  ${String(lost).padStart(8)}`,
  )
}
const failed = rows.filter((row) => row.failed)
const partial = rows.filter((row) => row.partial)
console.log(`ours: median ${median(rows.map((row) => row.ms)).toFixed(1)} ms per page (text, every part); ${failed.length} fetch${failed.length === 1 ? '' : 'es'} failed${failed.length ? ` (${failed.slice(0, 5).map((row) => `${row.id}: ${row.failed}`).join('; ')})` : ''}; ${partial.length} over maxBytes read as their first part with allowPartial${partial.length ? ` (${partial.map((row) => row.id).join(', ')})` : ''}; readability threw on ${readabilityFailures} page${readabilityFailures === 1 ? '' : 's'} (scored as empty)`)
const unread = rows.filter((row) => row.notContent)
const unreadWrongly = unread.filter((row) => !row.notContent!.emptyReference)
console.log(
  `judged not content (a wall, or a shell without the page's text: scored as no content): ${unread.length} page${unread.length === 1 ? '' : 's'}, ` +
    `${unread.length - unreadWrongly.length} with an empty reference, ${unreadWrongly.length} with one (${unreadWrongly.map((row) => `${row.id} ${row.notContent!.outcome}`).slice(0, 10).join(', ') || 'none'})`,
)
// The page type the reader judged (page-type.ts) against the benchmark's label: how often right, by what it was judged from, and per label.
const typed = rows.filter((row) => row.judged)
const right = (group: PageRow[]) => group.filter((row) => row.judged?.type === row.type).length
const bases = [...new Set(typed.map((row) => row.judged!.from ?? 'declared'))]
console.log(
  `page type judged (metadata.pageType against the benchmark's label): ${right(rows)} of ${rows.length} right, ${rows.length - typed.length} not judged; ` +
    bases.map((basis) => {
      const group = typed.filter((row) => (row.judged!.from ?? 'declared') === basis)
      return `from ${basis} ${right(group)} of ${group.length}`
    }).join(', '),
)
for (const [type, group] of groups.slice(1)) {
  const judgedAs = new Map<string, number>()
  for (const row of group) judgedAs.set(row.judged?.type ?? 'none', (judgedAs.get(row.judged?.type ?? 'none') ?? 0) + 1)
  const precision = typed.filter((row) => row.judged!.type === type)
  console.log(`  ${type.padEnd(13)} judged ${[...judgedAs].sort((a, b) => b[1] - a[1]).map(([as, count]) => `${as} ${count}`).join(', ')}; of the pages judged ${type}, ${right(precision)} of ${precision.length} are`)
}
const worst = rows.filter((row) => row.f1.text < row.f1.readability - 0.3).sort((a, b) => a.f1.text - a.f1.readability - (b.f1.text - b.f1.readability))
if (worst.length) console.log(`lost to readability by more than 0.3: ${worst.map((row) => `${row.id} (${row.type} ${f(row.f1.text)} vs ${f(row.f1.readability)})`).slice(0, 20).join(', ')}${worst.length > 20 ? `, and ${worst.length - 20} more` : ''}`)
if (values.out) {
  await mkdir(values.out, { recursive: true })
  await writeFile(join(values.out, 'pages.jsonl'), rows.map((row) => JSON.stringify(row)).join('\n') + '\n')
  console.log(`per-page rows: ${join(values.out, 'pages.jsonl')}`)
}
