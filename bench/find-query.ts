/**
 * pnpm bench:find-query [--data DIR] [--limit N] [--format markdown|text]
 *
 * Asks questions of the shared article-extraction benchmark's pages (181
 * articles with a human-made article body) with web_fetch's `find` and
 * `query`, through createHttpFetcher on loopback, and scores them against
 * reading the page part by part in the same run. The questions are written
 * from each page's ground-truth text, three per page, by fixed rules (the
 * same in every run):
 *
 * - once: five words of the middle paragraph that occur once in the body;
 *   find and query ask those words, the answer is the phrase itself;
 * - number: a sentence with a number (two digits or more) after the first
 *   paragraph; find asks the two words before the number, query the
 *   sentence's other words; the answer is those two words and the number;
 * - later term: a word of eight letters or more first used after the first
 *   two paragraphs and in the second half of the body; find and query ask
 *   the word; the answer is it and the three words after it where it is first used.
 *
 * A hit: the first match of `find` (its text and the words around it) or
 * the first passage of `query` holds the answer (case, spacing and inline
 * markdown ignored). The characters per answer are those of the tool's
 * model-facing output (dsh-tool-web's renderFetch: header, fence and all),
 * against the part-by-part baseline: every part of max_chars 20,000 (the
 * default) up to and with the one holding the answer. A question whose
 * answer the extracted text does not hold (extraction lost it) is counted
 * apart, not as a miss of find or query. Speed: the median milliseconds of
 * a find and of a query call against a plain part read of the same cached
 * snapshot, on every page and on a synthetic 2 MB page, as ratios.
 */
import { existsSync } from 'node:fs'
import { readFile, readdir } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { FetchFormat, FetchRequest, FetchedDocument } from 'dsh-web'
import { createHttpFetcher } from 'dsh-web-fetch-http'
import { renderFetch } from '../packages/tool-web/src/render-fetch.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(root, '../shared/bench/article-extraction') },
    limit: { type: 'string' },
    format: { type: 'string', default: 'markdown' },
  },
})
if (!existsSync(join(values.data!, 'ground-truth.json'))) {
  console.error(`bench:find-query: ${join(values.data!, 'ground-truth.json')} does not exist. This run needs the article-extraction benchmark (a folder with ground-truth.json and html/*.html.gz); it looks in ../shared/bench beside the clone. Put it there, or pass --data with its path.`)
  process.exit(2)
}
const format = values.format as FetchFormat
if (format !== 'markdown' && format !== 'text') throw new Error(`--format must be markdown or text, not ${format}`)
const PART_CHARS = 20_000

const truth = JSON.parse(await readFile(join(values.data!, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody: string }>
let ids = (await readdir(join(values.data!, 'html'))).filter((file) => file.endsWith('.html.gz')).map((file) => file.slice(0, -'.html.gz'.length)).sort()
if (values.limit) ids = ids.slice(0, Number(values.limit))
const pages = new Map<string, Buffer>()
for (const id of ids) pages.set(id, await readFile(join(values.data!, 'html', `${id}.html.gz`)))

/** A 2 MB page of 2,000 sections, the answer in one near the end. */
const LARGE = `<!doctype html><html><head><title>Large</title></head><body><main><article><h1>Large</h1>${Array.from({ length: 2_000 }, (_, index) =>
  `<h2>Section ${index}</h2><p>${index === 1_900 ? 'The retention period for archived records is 400 days. ' : ''}${'Ordinary words of this section fill it with prose that says nothing in particular. '.repeat(12)}</p>`).join('')}</article></main></body></html>`

const server = createServer((request, response) => {
  const id = new URL(request.url ?? '/', 'http://x').pathname.slice(1)
  if (id === 'large') return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LARGE)
  const body = pages.get(id)
  if (!body) return void response.writeHead(404).end()
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' }).end(body)
})
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], artifactThreshold: Number.MAX_SAFE_INTEGER, cacheTtlMs: 10 * 60_000 })
const fetch = (request: Omit<FetchRequest, 'format'>) => fetcher.fetch({ format, maxChars: PART_CHARS, ...request }, { signal: new AbortController().signal })

/** Text as the answer is looked for in it: lowercase, inline markdown and link targets dropped, spacing as one space. */
const normal = (text: string) => text.replace(/\]\([^)]*\)/g, '').replace(/[^\p{L}\p{N}]+/gu, ' ').toLowerCase().trim()
/** The body's words as written, punctuation and all (a phrase of them is literal text of the body). */
const words = (text: string) => text.split(/\s+/).filter(Boolean)
/** A phrase of written words without the punctuation at its two ends. */
const phraseOf = (tokens: string[]) => tokens.join(' ').replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
const bare = (token: string) => token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')

interface Question {
  kind: 'once' | 'number' | 'later term'
  find: string
  query: string
  answer: string
}

function questionsOf(body: string): Question[] {
  const paragraphs = body.split(/\n+/).map((paragraph) => paragraph.trim()).filter(Boolean)
  const all = normal(body)
  const questions: Question[] = []
  const middle = words(paragraphs[Math.floor(paragraphs.length / 2)] ?? '')
  for (let start = 0; start + 5 <= middle.length; start++) {
    const phrase = phraseOf(middle.slice(start, start + 5))
    const folded = normal(phrase)
    if (all.indexOf(folded) >= 0 && all.indexOf(folded) === all.lastIndexOf(folded)) {
      questions.push({ kind: 'once', find: phrase, query: phrase, answer: phrase })
      break
    }
  }
  number: for (const paragraph of paragraphs.slice(1)) {
    for (const sentence of paragraph.split(/(?<=[.!?])\s+/)) {
      const tokens = words(sentence)
      const at = tokens.findIndex((token, index) => index >= 2 && /^\d[\d,.]*\d$/.test(bare(token)) && !/[^\p{L}\p{N}]$/u.test(tokens[index - 1]!))
      if (at < 0) continue
      const before = phraseOf(tokens.slice(at - 2, at))
      const rest = tokens.map(bare).filter((token, index) => index !== at && token.length > 3 && !/\d/.test(token)).slice(0, 8)
      if (!rest.length) continue
      questions.push({ kind: 'number', find: before, query: rest.join(' '), answer: `${before} ${bare(tokens[at]!)}` })
      break number
    }
  }
  const seen = new Set(paragraphs.slice(0, 2).flatMap((paragraph) => words(paragraph).map((word) => word.toLowerCase())))
  let position = paragraphs.slice(0, 2).join(' ').length
  later: for (const paragraph of paragraphs.slice(2)) {
    const tokens = words(paragraph)
    for (const [index, token] of tokens.map(bare).entries()) {
      const lower = token.toLowerCase()
      if (position > body.length / 2 && /^\p{L}{8,}$/u.test(token) && !seen.has(lower) && index + 3 < tokens.length) {
        questions.push({ kind: 'later term', find: token, query: token, answer: phraseOf(tokens.slice(index, index + 4)) })
        break later
      }
      seen.add(lower)
    }
    position += paragraph.length
  }
  return questions
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : NaN
}
async function timed(request: Omit<FetchRequest, 'format'>): Promise<{ document: FetchedDocument; ms: number }> {
  const started = performance.now()
  const document = await fetch(request)
  return { document, ms: performance.now() - started }
}

interface Score {
  asked: number
  unanswerable: number
  findHits: number
  queryHits: number
  findChars: number
  queryChars: number
  partChars: number
}
const scores = new Map<string, Score>()
const score = (kind: string) => {
  let entry = scores.get(kind)
  if (!entry) scores.set(kind, (entry = { asked: 0, unanswerable: 0, findHits: 0, queryHits: 0, findChars: 0, queryChars: 0, partChars: 0 }))
  return entry
}
const times = { plain: [] as number[], find: [] as number[], query: [] as number[] }
const failures: string[] = []

for (const id of ids) {
  const url = `${base}/${id}`
  let first: FetchedDocument
  try {
    first = await fetch({ url })
  } catch (error) {
    failures.push(`${id}: ${(error as Error).message}`)
    continue
  }
  // The part-by-part baseline: each part's model-facing output, in order, and the text read so far.
  const parts: { chars: number; readSoFar: string }[] = []
  let read = ''
  for (let part: FetchedDocument | undefined = first; part; part = part.nextOffset === undefined ? undefined : await fetch({ url, offset: part.nextOffset })) {
    read += part.text
    parts.push({ chars: renderFetch(part).length, readSoFar: normal(read) })
  }
  for (const question of questionsOf(truth[id]!.articleBody)) {
    const entry = score(question.kind)
    const answer = normal(question.answer)
    const upTo = parts.findIndex((part) => part.readSoFar.includes(answer))
    entry.asked++
    if (upTo < 0) {
      entry.unanswerable++
      continue
    }
    entry.partChars += parts.slice(0, upTo + 1).reduce((sum, part) => sum + part.chars, 0)
    const plain = await timed({ url })
    const found = await timed({ url, find: question.find })
    const ranked = await timed({ url, query: question.query })
    times.plain.push(plain.ms)
    times.find.push(found.ms)
    times.query.push(ranked.ms)
    const match = found.document.find?.matches[0]
    if (match && normal(`${match.before} ${match.text}${match.after}`).includes(answer)) entry.findHits++
    const passage = ranked.document.query?.passages[0]
    if (passage && normal(passage.text).includes(answer)) entry.queryHits++
    entry.findChars += renderFetch(found.document).length
    entry.queryChars += renderFetch(ranked.document).length
  }
}

const large = { plain: [] as number[], find: [] as number[], query: [] as number[] }
await fetch({ url: `${base}/large` })
for (let round = 0; round < 7; round++) {
  large.plain.push((await timed({ url: `${base}/large` })).ms)
  large.find.push((await timed({ url: `${base}/large`, find: 'retention period' })).ms)
  large.query.push((await timed({ url: `${base}/large`, query: 'how long are archived records kept' })).ms)
}
const largeDocument = (await timed({ url: `${base}/large`, query: 'retention period archived records' })).document
// The large page part by part, up to the part with its answer, against one find and one query.
let largeParts = 0
for (let part: FetchedDocument | undefined = await fetch({ url: `${base}/large` }); part; part = part.nextOffset === undefined ? undefined : await fetch({ url: `${base}/large`, offset: part.nextOffset })) {
  largeParts += renderFetch(part).length
  if (part.text.includes('retention period')) break
}
const largeFind = renderFetch((await fetch({ url: `${base}/large`, find: 'retention period' }))).length
const largeQuery = renderFetch(largeDocument).length

const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)}%` : 'n/a')
const ratio = (a: number, b: number) => (b ? (a / b).toFixed(2) : 'n/a')
console.log(`bench:find-query, format ${format}: ${ids.length} pages of the article-extraction benchmark${failures.length ? `, ${failures.length} failed to fetch` : ''}`)
console.log('')
console.log('question     asked  answer not in text  find hit  query hit  chars/answer: parts  find (ratio)      query (ratio)')
const total: Score = { asked: 0, unanswerable: 0, findHits: 0, queryHits: 0, findChars: 0, queryChars: 0, partChars: 0 }
for (const [kind, entry] of [...scores, ['all', total] as const]) {
  if (kind !== 'all') for (const key of Object.keys(total) as (keyof Score)[]) total[key] += entry[key]
  const answerable = entry.asked - entry.unanswerable
  const per = (chars: number) => Math.round(chars / Math.max(1, answerable))
  console.log(
    `${kind.padEnd(12)} ${String(entry.asked).padStart(5)}  ${String(entry.unanswerable).padStart(18)}  ${percent(entry.findHits, answerable).padStart(8)}  ${percent(entry.queryHits, answerable).padStart(9)}  ${String(per(entry.partChars)).padStart(19)}  ${`${per(entry.findChars)} (${ratio(entry.partChars, entry.findChars)}x fewer)`.padEnd(16)}  ${per(entry.queryChars)} (${ratio(entry.partChars, entry.queryChars)}x fewer)`,
  )
}
console.log('')
console.log('Hit rates are over the questions whose answer the extracted text holds; characters are the model-facing output per answerable question, the parts baseline reading max_chars 20000 parts up to the one with the answer.')
console.log(`Median ms per call on a cached snapshot, article pages: plain part ${median(times.plain).toFixed(2)}, find ${median(times.find).toFixed(2)} (${ratio(median(times.find), median(times.plain))}x), query ${median(times.query).toFixed(2)} (${ratio(median(times.query), median(times.plain))}x)`)
console.log(`Median ms per call on a cached snapshot, ${largeDocument.totalChars} characters: plain part ${median(large.plain).toFixed(2)}, find ${median(large.find).toFixed(2)} (${ratio(median(large.find), median(large.plain))}x), query ${median(large.query).toFixed(2)} (${ratio(median(large.query), median(large.plain))}x); query's first passage there: ${JSON.stringify(largeDocument.query?.passages[0]?.text.slice(0, 60))}`)
console.log(`Characters to the answer on that page: parts ${largeParts}, find ${largeFind} (${ratio(largeParts, largeFind)}x fewer), query ${largeQuery} (${ratio(largeParts, largeQuery)}x fewer)`)
for (const failure of failures.slice(0, 5)) console.log(`failed: ${failure}`)

await fetcher.close()
server.close()
