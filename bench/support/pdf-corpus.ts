/**
 * The corpus of bench:pdf-structure and of tests/pdf-chromium.spec.ts:
 * documents written as HTML whose structure is known (headings, paragraphs,
 * lists, tables, two columns), printed to PDF by Chromium, and the scores
 * of a reading of them against that structure (see bench/pdf-structure.ts).
 */
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export type Block =
  | { h: 1 | 2 | 3 | 4; text: string }
  | { p: string }
  | { ul: string[] }
  | { ol: string[] }
  | { table: string[][] }
  | { columns: string[] }

export interface Doc {
  id: string
  blocks: Block[]
}

const sentence = (seed: number, words: number) => {
  const vocabulary = ['archive', 'budget', 'cluster', 'deadline', 'engine', 'folder', 'gateway', 'harbour', 'index', 'journal', 'kernel', 'ledger', 'module', 'network', 'outline', 'packet', 'quota', 'record', 'schema', 'ticket', 'update', 'vendor', 'window', 'yield']
  const out: string[] = []
  for (let index = 0; index < words; index++) out.push(vocabulary[(seed * 7 + index * 13 + (index * index) % 5) % vocabulary.length]!)
  return `${out.join(' ')} ${seed}.`.replace(/^./, (letter) => letter.toUpperCase())
}

export const CORPUS: Doc[] = [
  {
    id: 'report',
    blocks: [
      { h: 1, text: 'Annual report of the storage team' },
      { p: sentence(1, 40) },
      { h: 2, text: 'Results of the year' },
      { p: sentence(2, 30) },
      { ul: ['Capacity doubled in the second half', 'Two regions added', 'Fewer incidents than last year'] },
      { h: 2, text: 'Costs' },
      { table: [['Item', 'Q1', 'Q2', 'Q3'], ['Disks', '120', '140', '135'], ['Network', '40', '42', '45'], ['People', '300', '310', '320']] },
      { h: 3, text: 'Notes on the costs' },
      { p: sentence(3, 25) },
    ],
  },
  {
    id: 'two-columns',
    blocks: [
      { h: 1, text: 'A paper in two columns' },
      { p: sentence(4, 20) },
      { columns: [sentence(5, 60), sentence(6, 45), sentence(7, 70), sentence(8, 30)] },
      { h: 2, text: 'After the columns' },
      { p: sentence(9, 30) },
    ],
  },
  {
    id: 'manual',
    blocks: [
      { h: 1, text: 'Installation manual' },
      { h: 2, text: 'Requirements' },
      { table: [['Package', 'Version', 'Node'], ['dsh-web', '0.1.0', '20.19'], ['undici', '7.16', '20.18'], ['tsx', '4.20', '20.0']] },
      { h: 2, text: 'Steps' },
      { ol: ['Download the archive', 'Unpack it in a folder of your own', 'Run the install command', 'Check the version it prints'] },
      { h: 3, text: 'When a step fails' },
      { p: sentence(10, 50) },
      { h: 4, text: 'Reading the install log' },
      { p: sentence(12, 35) },
      { h: 2, text: 'Options' },
      { table: [['Option', 'Default', 'Meaning'], ['timeout', '30 s', 'how long a call may take'], ['retries', '2', 'attempts after the first'], ['proxy', 'none', 'where requests go']] },
    ],
  },
  {
    id: 'long',
    blocks: Array.from({ length: 8 }, (_, section): Block[] => [
      { h: 2, text: `Chapter ${section + 1} of the long document` },
      { p: sentence(20 + section, 80) },
      { p: sentence(40 + section, 60) },
      ...(section % 3 === 1 ? [{ table: [['Key', 'Value'], [`alpha${section}`, `${section * 3}`], [`beta${section}`, `${section * 5}`]] } as Block] : []),
      ...(section % 3 === 2 ? [{ ul: [`First point of chapter ${section + 1}`, `Second point of chapter ${section + 1}`] } as Block] : []),
    ]).flat(),
  },
  {
    id: 'columns-and-table',
    blocks: [
      { h: 1, text: 'Survey results' },
      { columns: [sentence(60, 50), sentence(61, 50), sentence(62, 40)] },
      { h: 2, text: 'Answers by region' },
      { table: [['Region', 'Yes', 'No', 'Unsure'], ['North', '41', '12', '7'], ['South', '38', '15', '9'], ['East', '29', '22', '11'], ['West', '45', '9', '4']] },
      { p: sentence(63, 30) },
    ],
  },
]

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;')

export function toHtml(doc: Doc): string {
  const parts = doc.blocks.map((block) => {
    if ('h' in block) return `<h${block.h}>${escape(block.text)}</h${block.h}>`
    if ('p' in block) return `<p>${escape(block.p)}</p>`
    if ('ul' in block) return `<ul>${block.ul.map((item) => `<li>${escape(item)}</li>`).join('')}</ul>`
    if ('ol' in block) return `<ol>${block.ol.map((item) => `<li>${escape(item)}</li>`).join('')}</ol>`
    if ('table' in block) {
      const [head, ...rows] = block.table
      return `<table><tr>${head!.map((cell) => `<th>${escape(cell)}</th>`).join('')}</tr>${rows.map((row) => `<tr>${row.map((cell) => `<td>${escape(cell)}</td>`).join('')}</tr>`).join('')}</table>`
    }
    return `<div class="columns">${block.columns.map((paragraph) => `<p>${escape(paragraph)}</p>`).join('')}</div>`
  })
  const style = 'body{font-family:sans-serif;font-size:11pt;margin:0} .columns{column-count:2;column-gap:2.5em} table{border-collapse:collapse;margin:1em 0} td,th{border:1px solid #888;padding:3px 6px;text-align:left}'
  return `<!doctype html><html><head><meta charset="utf-8"><title>${doc.id}</title><style>${style}</style></head><body>${parts.join('\n')}</body></html>`
}

function run(file: string, argv: string[]): Promise<void> {
  return new Promise((resolveRun, reject) => execFile(file, argv, { timeout: 60_000 }, (error) => (error ? reject(error) : resolveRun())))
}

export async function printPdf(chromium: string, html: string, folder: string, id: string): Promise<Uint8Array> {
  const htmlPath = join(folder, `${id}.html`)
  const pdfPath = join(folder, `${id}.pdf`)
  await writeFile(htmlPath, html)
  // A profile of its own in the temp folder; the page is a local file, and nothing else is loaded.
  await run(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${join(folder, 'profile')}`, '--no-pdf-header-footer', '--generate-pdf-document-outline', `--print-to-pdf=${pdfPath}`, pathToFileURL(htmlPath).href])
  return new Uint8Array(await readFile(pdfPath))
}

const norm = (text: string) => text.toLowerCase().replace(/[*_`#|]/g, ' ').replace(/\s+/g, ' ').trim()

export interface Score {
  headings: number
  headingsFound: number
  headingsLevel: number
  extraHeadings: number
  cells: number
  cellsPlaced: number
  paragraphs: number
  paragraphsWhole: number
  paragraphsInOrder: number
  items: number
  itemsAsItems: number
}

export function score(doc: Doc, output: string): Score {
  const lines = output.split('\n')
  const headingLines = lines.flatMap((line) => {
    const match = /^(#{1,6}) (.+)$/.exec(line)
    return match ? [{ level: match[1]!.length, text: norm(match[2]!) }] : []
  })
  const headings = doc.blocks.filter((block): block is { h: 1 | 2 | 3 | 4; text: string } => 'h' in block)
  // The level a heading gets is the rank of its size among the document's heading sizes.
  const ranks = [...new Set(headings.map((heading) => heading.h))].sort()
  let found = 0
  let level = 0
  for (const heading of headings) {
    const line = headingLines.find((candidate) => candidate.text === norm(heading.text))
    if (!line) continue
    found++
    if (line.level === ranks.indexOf(heading.h) + 1) level++
  }
  const headingTexts = new Set(headings.map((heading) => norm(heading.text)))
  const extra = headingLines.filter((line) => !headingTexts.has(line.text)).length

  const tables = outputTables(lines)
  const used = new Set<string[][]>()
  let cells = 0
  let placed = 0
  for (const block of doc.blocks) {
    if (!('table' in block)) continue
    cells += block.table.flat().length
    const head = block.table[0]!.map(norm).join('|')
    // Tables with the same first row are matched in document order.
    const table = tables.find((candidate) => !used.has(candidate) && candidate[0]?.map(norm).join('|') === head)
    if (!table) continue
    used.add(table)
    block.table.forEach((row, r) => row.forEach((cell, c) => (table[r]?.[c] !== undefined && norm(table[r]![c]!) === norm(cell) ? placed++ : 0)))
  }

  const flat = norm(output)
  const texts = doc.blocks.flatMap((block) => ('p' in block ? [block.p] : 'columns' in block ? block.columns : 'ul' in block ? block.ul : 'ol' in block ? block.ol : []))
  const positions = texts.map((text) => flat.indexOf(norm(text)))
  const whole = positions.filter((position) => position >= 0)
  const items = doc.blocks.flatMap((block) => ('ul' in block ? block.ul : 'ol' in block ? block.ol : []))
  const itemLines = new Set(lines.flatMap((line) => {
    const match = /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/.exec(line)
    return match ? [norm(match[1]!)] : []
  }))
  return {
    headings: headings.length,
    headingsFound: found,
    headingsLevel: level,
    extraHeadings: extra,
    cells,
    cellsPlaced: placed,
    paragraphs: texts.length,
    paragraphsWhole: whole.length,
    paragraphsInOrder: longestIncreasing(whole),
    items: items.length,
    itemsAsItems: items.filter((item) => itemLines.has(norm(item))).length,
  }
}

/** Pipe tables (markdown) and runs of tab-separated lines (text), as rows of cells. */
function outputTables(lines: string[]): string[][][] {
  const tables: string[][][] = []
  let current: string[][] | undefined
  for (const line of lines) {
    let row: string[] | undefined
    if (/^\|.*\|$/.test(line)) {
      if (/^\|(\s*---\s*\|)+$/.test(line)) continue
      row = line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim())
    } else if (line.includes('\t')) row = line.split('\t')
    if (row) (current ??= []).push(row)
    else if (current) {
      tables.push(current)
      current = undefined
    }
  }
  if (current) tables.push(current)
  return tables
}

function longestIncreasing(values: number[]): number {
  const tails: number[] = []
  for (const value of values) {
    let low = 0
    let high = tails.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (tails[middle]! < value) low = middle + 1
      else high = middle
    }
    tails[low] = value
  }
  return tails.length
}

export const sum = (scores: Score[]) => scores.reduce((total, one) => Object.fromEntries(Object.entries(total).map(([key, value]) => [key, value + one[key as keyof Score]])) as unknown as Score)
const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)}%` : 'n/a')

export function describe(label: string, total: Score): string {
  return [
    `${label.padEnd(12)} headings ${percent(total.headingsFound, total.headings)} found, ${percent(total.headingsLevel, total.headings)} at their level, ${total.extraHeadings} extra`,
    `table cells ${percent(total.cellsPlaced, total.cells)} in place`,
    `paragraphs ${percent(total.paragraphsWhole, total.paragraphs)} whole, ${percent(total.paragraphsInOrder, total.paragraphs)} in order`,
    `list items ${percent(total.itemsAsItems, total.items)}`,
  ].join('; ')
}

