/**
 * pnpm bench:pdf-structure [--chromium PATH] [--format markdown|text] [--keep DIR]
 *
 * How much of a PDF's structure web_fetch reads back, on PDFs printed by a
 * real engine: each document of the corpus below is written as HTML
 * (headings, paragraphs, lists, tables, a two-column part) and printed to PDF
 * by Debian's Chromium (`--print-to-pdf`, with its document outline), then
 * read by dsh-web-readers' ExtractPool as a fetch reads it. The HTML is the
 * ground truth. Scores, per document and overall:
 *
 * - headings: of the document's h1 to h3, how many come back as a heading
 *   line (`#`, `##`, `###` in markdown) with their words, and at the level
 *   their rank of size gives (h1 largest); and how many heading lines the
 *   output has that are not headings of the document;
 * - table cells: of each table's cells, how many stand in the same row and
 *   column of a table in the output (a pipe table in markdown, tab-separated
 *   lines in text), the table found by its first row;
 * - reading order: of the paragraphs and list items, how many come back
 *   whole (their words in a row) and, of those, how many in the order of the
 *   document (the longest run in order);
 * - list items: how many come back as list items (`- ` or `1. `).
 *
 * The baseline in the same run is pdf.js's text in stream order (its items
 * joined, a line where it ends one): what web_fetch returned before the
 * layout. Exits 2 without Chromium.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { ExtractPool } from '../packages/web-readers/src/workers/extract-pool.js'
import { CORPUS, type Score, describe, printPdf, score, sum, toHtml } from './support/pdf-corpus.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: args } = parseArgs({ options: { chromium: { type: 'string', default: '/usr/bin/chromium' }, format: { type: 'string', default: 'markdown' }, keep: { type: 'string' } } })
const format = args.format === 'text' ? 'text' : 'markdown'

/** pdf.js's text in stream order: what web_fetch returned before pdf-layout.ts. */
async function streamOrder(bytes: Uint8Array): Promise<string> {
  const pdfjs = (await import(createRequire(join(root, 'packages/web-readers/package.json')).resolve('pdfjs-dist/legacy/build/pdf.mjs'))) as any
  const document = await pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false }).promise
  const pages: string[] = []
  for (let number = 1; number <= document.numPages; number++) {
    const { items } = await (await document.getPage(number)).getTextContent()
    pages.push(`--- page ${number} ---\n${items.map((item: any) => `${item.str}${item.hasEOL ? '\n' : ''}`).join('')}`)
  }
  await document.destroy()
  return pages.join('\n\n')
}

if (!existsSync(args.chromium!)) {
  console.error(`bench:pdf-structure prints its PDFs with Chromium, and ${args.chromium} does not exist: install Debian's chromium (apt-get install chromium) or pass --chromium with its path.`)
  process.exit(2)
}
const folder = args.keep ? resolve(args.keep) : await mkdtemp(join(tmpdir(), 'dsh-bench-pdf-'))
await mkdir(folder, { recursive: true })
const pool = new ExtractPool({ size: 1 })
const ours: Score[] = []
const baseline: Score[] = []
try {
  for (const doc of CORPUS) {
    const bytes = await printPdf(args.chromium!, toHtml(doc), folder, doc.id)
    const output = await pool.convert({ bytes: new Uint8Array(bytes), kind: 'pdf', url: `https://bench.test/${doc.id}.pdf`, format, extract: 'main' }, new AbortController().signal)
    if (args.keep) await writeFile(join(folder, `${doc.id}.${format === 'markdown' ? 'md' : 'txt'}`), output.text)
    ours.push(score(doc, output.text))
    baseline.push(score(doc, await streamOrder(bytes)))
    console.log(describe(doc.id, ours.at(-1)!))
  }
  console.log('')
  console.log(`${CORPUS.length} documents printed by ${args.chromium}, read as ${format}:`)
  console.log(describe('web_fetch', sum(ours)))
  console.log(describe('stream order', sum(baseline)))
} finally {
  await pool.close()
  if (!args.keep) await rm(folder, { recursive: true, force: true })
}
