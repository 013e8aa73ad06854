/**
 * pnpm bench:pathological [--only KIND] [--at-once N]
 *
 * Generated pathological documents (tests/pathological-pages.ts: deep
 * nesting, hundreds of thousands of links, megabytes of attributes, white
 * space, siblings, table cells, re-opened formatting; and PDFs: a
 * decompression bomb, thousands of pages) converted as the fetcher converts
 * them, each beside an ordinary document of the same size (normalPage, or a
 * PDF of plain text pages) in the same run. Each conversion runs in a child
 * process of its own, so that its peak RSS is its own: HTML through
 * convertBody as an extraction worker runs it (the second of two
 * conversions, so that both documents are timed with the code optimised),
 * PDFs through the ExtractPool's document processes (their peak as the
 * document process saw it). Then `--at-once` (default 3) copies of each
 * document at once, through an ExtractPool of that many workers: the peak RSS
 * of the whole process, workers and document processes included.
 *
 * Prints, per class: size, milliseconds, the ratio to the ordinary document
 * of the same size, peak RSS alone and at once, the outcome (characters of
 * text, or the error code), and whether the class's stated bound holds: time
 * at most BOUND.time x the ordinary document's, peak RSS at most BOUND.rssMb
 * alone. `pnpm bench:pathological` builds first; the children run the
 * TypeScript source (tsx).
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { convertBody } from '../packages/web-readers/src/convert/convert-body.js'
import { ExtractPool } from '../packages/web-readers/src/workers/extract-pool.js'
import { PATHOLOGICAL_PAGES, normalPage } from '../packages/web-fetch-http/tests/pathological-pages.js'
import { writePdf } from '../packages/web-fetch-http/tests/pdf-writer.js'

const { values } = parseArgs({ options: { only: { type: 'string' }, twin: { type: 'boolean' }, 'at-once': { type: 'string' }, child: { type: 'boolean' } } })
const atOnce = Number(values['at-once'] ?? 3)

/** Each class's bound: time against the ordinary document of the same size, and peak RSS of its process alone. */
const BOUND: Record<string, { time: number; rssMb: number }> = {
  'nested blocks (60,000 deep)': { time: 3, rssMb: 400 },
  'nested inline, unclosed (60,000)': { time: 3, rssMb: 400 },
  'links (200,000)': { time: 3, rssMb: 600 },
  'attributes on one element (100,000)': { time: 3, rssMb: 400 },
  'attribute values (5 MB)': { time: 3, rssMb: 400 },
  'white space (4 MB)': { time: 3, rssMb: 400 },
  'sibling paragraphs (150,000)': { time: 3, rssMb: 600 },
  'table cells, unclosed (100,000)': { time: 3, rssMb: 400 },
  // refused at the element limit while the tree is built: no more than the ordinary page
  're-opened formatting (20,000)': { time: 3, rssMb: 600 },
  // refused at the document memory cap (512 MB), however far it would inflate
  'pdf: 2 GB FlateDecode bomb': { time: 30, rssMb: 600 },
  'pdf: 3,000 pages': { time: 3, rssMb: 512 },
}

const PDFS: Record<string, () => Buffer> = {
  'pdf: 2 GB FlateDecode bomb': () => writePdf([{ lines: ['Inflating page'], inflatesTo: 2 * 1024 ** 3 }]),
  'pdf: 3,000 pages': () => writePdf(Array.from({ length: 3000 }, (_, index) => ({ lines: [`Page ${index + 1}`] }))),
}

/** An ordinary PDF of about `bytes`: pages of lines of prose. */
function normalPdf(bytes: number): Buffer {
  const line = 'The harbour authority confirmed on Tuesday that the bridge will reopen.'
  const pages = Math.max(1, Math.round(bytes / 2600))
  return writePdf(Array.from({ length: pages }, () => ({ lines: Array.from({ length: 30 }, () => line) })))
}

function documentOf(kind: string, twin: boolean): { bytes: Buffer; pdf: boolean } {
  if (kind in PDFS) {
    const bytes = PDFS[kind]!()
    return { bytes: twin ? normalPdf(bytes.length) : bytes, pdf: true }
  }
  const html = PATHOLOGICAL_PAGES[kind]!()
  return { bytes: Buffer.from(twin ? normalPage(Buffer.byteLength(html)) : html), pdf: false }
}

function outcomeOf(error: unknown): string {
  return (error as { code?: string }).code ?? `${(error as Error).message.slice(0, 60)}`
}

const job = (bytes: Buffer, pdf: boolean) => ({ bytes: new Uint8Array(bytes), kind: pdf ? ('pdf' as const) : ('html' as const), url: 'https://bench.test/page', format: 'markdown' as const, extract: 'main' as const, maxElemsToParse: 200_000 })

if (values.child) {
  const { bytes, pdf } = documentOf(values.only!, values.twin ?? false)
  let outcome = ''
  let ms = 0
  let documentRss = 0
  let pool: ExtractPool | undefined
  if (values['at-once']) {
    pool = new ExtractPool({ size: atOnce, parseTimeoutMs: 120_000 })
    const results = await Promise.allSettled(Array.from({ length: atOnce }, () => pool!.convert(job(Buffer.from(bytes), pdf), AbortSignal.timeout(300_000))))
    outcome = results.map((result) => (result.status === 'fulfilled' ? `${result.value.text.length} chars` : outcomeOf(result.reason))).join(', ')
    // Document processes at once times the largest one's peak: each is its own process, so their peaks are not summed by maxRSS.
    documentRss = pool.documents.mostAtOnce * Math.max(pool.documents.peakRss, ...results.map((result) => (result.status === 'rejected' ? Number(result.reason?.details?.reachedBytes ?? 0) : 0)))
  } else {
    for (let round = 0; round < (pdf ? 1 : 2); round++) {
      const started = performance.now()
      try {
        if (pdf) {
          pool = new ExtractPool({ size: 1, parseTimeoutMs: 120_000 })
          const output = await pool.convert(job(bytes, pdf), AbortSignal.timeout(300_000))
          outcome = `${output.text.length} chars`
          documentRss = pool.documents.peakRss
        } else {
          const output = convertBody(job(bytes, pdf))
          outcome = `${output.text.length} chars${output.warnings.length ? ` (${output.warnings.length} warning)` : ''}`
        }
      } catch (error) {
        outcome = outcomeOf(error)
        documentRss = Number((error as { details?: { reachedBytes?: number } }).details?.reachedBytes ?? 0)
      }
      ms = performance.now() - started
    }
  }
  await pool?.close()
  // A PDF's memory is its document process's; an HTML page's, this process's.
  const rssMb = (pdf && !values['at-once'] ? documentRss : process.resourceUsage().maxRSS * 1024 + documentRss) / 2 ** 20
  console.log(JSON.stringify({ bytes: bytes.length, ms, rssMb, outcome }))
  process.exit(0)
}

interface Measure {
  bytes: number
  ms: number
  rssMb: number
  outcome: string
}
const run = (kind: string, flags: string[]): Measure => {
  const out = execFileSync(process.execPath, ['--max-old-space-size=1024', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', '--only', kind, ...flags], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  })
  return JSON.parse(out.trim().split('\n').at(-1)!) as Measure
}

const kinds = values.only ? [values.only] : Object.keys(BOUND)
console.log(`pathological documents against an ordinary one of the same size, converted as the fetcher converts them (markdown, main); ${atOnce} at once through one ExtractPool`)
console.log(
  `${'class'.padEnd(38)} ${'MB'.padStart(5)} ${'ms'.padStart(7)} ${'ordinary'.padStart(8)} ${'ratio'.padStart(6)} ${'RSS MB'.padStart(7)} ${`x${atOnce} MB`.padStart(7)}  ${'bound'.padEnd(17)} holds  outcome`,
)
let failures = 0
for (const kind of kinds) {
  const measure = run(kind, [])
  const twin = run(kind, ['--twin'])
  const together = run(kind, ['--at-once', String(atOnce)])
  const bound = BOUND[kind]!
  const ratio = measure.ms / twin.ms
  const holds = ratio <= bound.time && measure.rssMb <= bound.rssMb
  if (!holds) failures++
  console.log(
    `${kind.padEnd(38)} ${(measure.bytes / 1e6).toFixed(2).padStart(5)} ${measure.ms.toFixed(0).padStart(7)} ${twin.ms.toFixed(0).padStart(8)} ${ratio.toFixed(2).padStart(6)} ` +
      `${measure.rssMb.toFixed(0).padStart(7)} ${together.rssMb.toFixed(0).padStart(7)}  ${`x${bound.time}, ${bound.rssMb} MB`.padEnd(17)} ${(holds ? 'yes' : 'NO').padEnd(5)}  ${measure.outcome}`,
  )
}
console.log(failures ? `${failures} class(es) over their bound` : 'every class within its bound')
process.exitCode = failures ? 1 : 0
