/**
 * pnpm bench:wcxb-diff BEFORE AFTER [--min 0.05]
 *
 * A change's wins and losses on the WCXB development split: BEFORE and
 * AFTER are the `pages.jsonl` of two `bench:wcxb --out DIR` runs (or their
 * folders). Printed: the mean text F1 per page type before and after, with
 * the change summed over the type's pages (a type can gain on average and
 * lose badly on some pages: both are shown); the pages lost to bare
 * Readability by more than 0.3 before and after (that count goes down,
 * never up); and every page whose text F1 moved by --min or more, worst
 * first, with its type and the page type the reader judged. Pages in one
 * run only are counted and left out.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

interface Row {
  id: string
  type: string
  f1: { text: number; markdown: number; readability: number }
  judged?: { type: string; from?: string }
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { min: { type: 'string', default: '0.05' } } })
const min = Number(values.min)
if (positionals.length !== 2 || !(min >= 0)) {
  console.error('bench:wcxb-diff: give two runs of bench:wcxb --out (their folders or pages.jsonl), before then after; --min is a number of 0 or more.')
  process.exit(2)
}

function load(path: string): Map<string, Row> {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'pages.jsonl') : path
  if (!existsSync(file)) {
    console.error(`bench:wcxb-diff: ${file} does not exist: run bench:wcxb with --out first.`)
    process.exit(2)
  }
  const rows = new Map<string, Row>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue
    const row = JSON.parse(line) as Row
    rows.set(row.id, row)
  }
  return rows
}

const before = load(positionals[0]!)
const after = load(positionals[1]!)
const shared = [...after.keys()].filter((id) => before.has(id))
const only = before.size + after.size - 2 * shared.length
const types = ['all', ...new Set(shared.map((id) => after.get(id)!.type))]
const lost = (row: Row) => row.f1.text < row.f1.readability - 0.3

console.log(`${shared.length} pages in both runs${only ? ` (${only} in one run only, left out)` : ''}`)
console.log(`${'type'.padEnd(14)} ${'pages'.padStart(5)} ${'before'.padStart(7)} ${'after'.padStart(7)} ${'change'.padStart(8)} ${'summed'.padStart(7)} ${'lost>0.3'.padStart(9)}`)
for (const type of types) {
  const ids = shared.filter((id) => type === 'all' || after.get(id)!.type === type)
  const sum = (rows: Map<string, Row>) => ids.reduce((total, id) => total + rows.get(id)!.f1.text, 0)
  const [was, is] = [sum(before), sum(after)]
  const lostCount = (rows: Map<string, Row>) => ids.filter((id) => lost(rows.get(id)!)).length
  console.log(
    `${type.padEnd(14)} ${String(ids.length).padStart(5)} ${(was / ids.length).toFixed(4).padStart(7)} ${(is / ids.length).toFixed(4).padStart(7)} ` +
      `${`${is >= was ? '+' : ''}${((is - was) / ids.length).toFixed(4)}`.padStart(8)} ${`${is >= was ? '+' : ''}${(is - was).toFixed(2)}`.padStart(7)} ${`${lostCount(before)} -> ${lostCount(after)}`.padStart(9)}`,
  )
}
const moved = shared
  .map((id) => ({ id, was: before.get(id)!, is: after.get(id)! }))
  .filter(({ was, is }) => Math.abs(is.f1.text - was.f1.text) >= min)
  .sort((a, b) => a.is.f1.text - a.was.f1.text - (b.is.f1.text - b.was.f1.text))
console.log(`pages whose text F1 moved by ${min} or more: ${moved.length}`)
for (const { id, was, is } of moved) {
  const change = is.f1.text - was.f1.text
  const judged = (row: Row) => row.judged?.type ?? 'none'
  console.log(
    `${change >= 0 ? '+' : ''}${change.toFixed(2)} ${id} ${is.type.padEnd(13)} ${was.f1.text.toFixed(2)} -> ${is.f1.text.toFixed(2)} (readability ${is.f1.readability.toFixed(2)}; judged ${judged(was) === judged(is) ? judged(is) : `${judged(was)} -> ${judged(is)}`})`,
  )
}
