/**
 * pnpm bench:pathological [--only KIND]
 *
 * Generated pathological pages (tests/pathological-pages.ts: deep nesting,
 * hundreds of thousands of links, megabytes of attributes, white space,
 * siblings, table cells, re-opened formatting) converted as an extraction
 * worker converts them (convertBody: decode, parse, readability, text), each
 * in its own child process so that its peak RSS is its own. Prints, per kind,
 * the page's size, milliseconds, peak RSS, the outcome (characters of text,
 * or the error code) and the ratios of time and RSS to the plain article in
 * the same run, and the slowest page and largest RSS beside the fetcher's
 * deadline for one page (15 s, extractTimeoutMs) and a worker's heap limit
 * (1 GB). The links page is 6.6 MB, over the default 5 MB body cap, so that
 * the fetcher's default refuses it before parsing (WEB_FETCH_TOO_LARGE);
 * here it is converted whole.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { convertBody } from '../packages/web-fetch-http/src/convert-body.js'
import { PATHOLOGICAL_PAGES } from '../packages/web-fetch-http/tests/pathological-pages.js'

const { values } = parseArgs({ options: { only: { type: 'string' } } })

if (values.only) {
  const html = PATHOLOGICAL_PAGES[values.only]!()
  const bytes = Buffer.from(html)
  const started = performance.now()
  let outcome: string
  try {
    const output = convertBody({ bytes, kind: 'html', url: 'https://bench.test/page', format: 'markdown', extract: 'main', maxElemsToParse: 200_000 })
    outcome = `${output.text.length} chars${output.warnings.length ? ` (${output.warnings.length} warning)` : ''}`
  } catch (error) {
    outcome = (error as { code?: string }).code ?? `${(error as Error).message.slice(0, 60)}`
  }
  const ms = performance.now() - started
  console.log(JSON.stringify({ bytes: bytes.length, ms, rssMb: process.resourceUsage().maxRSS / 1024, outcome }))
  process.exit(0)
}

interface Row {
  kind: string
  bytes: number
  ms: number
  rssMb: number
  outcome: string
}
const rows: Row[] = []
for (const kind of Object.keys(PATHOLOGICAL_PAGES)) {
  const out = execFileSync(process.execPath, ['--max-old-space-size=1024', '--import', 'tsx', fileURLToPath(import.meta.url), '--only', kind], { encoding: 'utf8', maxBuffer: 1 << 24 })
  rows.push({ kind, ...(JSON.parse(out.trim().split('\n').at(-1)!) as Omit<Row, 'kind'>) })
}
const plain = rows[0]!
console.log('pathological pages, converted as an extraction worker does (markdown, main), one child process per page')
console.log(`${'page'.padEnd(38)} ${'MB'.padStart(5)} ${'ms'.padStart(7)} ${'x plain'.padStart(8)} ${'RSS MB'.padStart(7)} ${'x plain'.padStart(8)}  outcome`)
for (const row of rows) {
  console.log(
    `${row.kind.padEnd(38)} ${(row.bytes / 1e6).toFixed(1).padStart(5)} ${row.ms.toFixed(0).padStart(7)} ${(row.ms / plain.ms).toFixed(1).padStart(8)} ` +
      `${row.rssMb.toFixed(0).padStart(7)} ${(row.rssMb / plain.rssMb).toFixed(1).padStart(8)}  ${row.outcome}`,
  )
}
const slowest = rows.reduce((a, b) => (b.ms > a.ms ? b : a))
console.log(`slowest: ${slowest.kind}, ${slowest.ms.toFixed(0)} ms (the deadline is 15000 ms); largest RSS: ${Math.max(...rows.map((row) => row.rssMb)).toFixed(0)} MB (the worker heap limit is 1024 MB)`)
