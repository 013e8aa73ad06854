import type { RankedPassage } from 'dsh-web'
import type { HeadingPaths } from './page-outline.js'

/** Passages a query result holds at most, besides maxChars. */
export const PASSAGES_MAX = 5
/** A block shorter than this is joined with the next one of its section, while the two stay under UNIT_MAX. */
const UNIT_MIN = 250
/** A block longer than this is ranked in parts, split at lines, then sentences, then words. */
const UNIT_MAX = 1200
/** BM25's usual constants: how fast repeated words stop counting, and how much a long block is discounted. */
const K1 = 1.2
const B = 0.75
/** A word of a block's heading path counts this much of a word in the block. */
const HEADING_WEIGHT = 0.5

export const RANKING_METHOD =
  "Passages chosen by word overlap with the query (BM25 over the page's blocks, their headings counting too), not by understanding: a passage can share the words without answering, and an answer put in other words is missed."

/**
 * The words of a text as they are ranked: lowercase, accents dropped, a
 * plural s dropped, link targets of markdown left out.
 */
export function rankTerms(text: string): string[] {
  const words = text.replace(/\]\([^)\s]*\)/g, ']').normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  return words.map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word))
}

interface Unit {
  start: number
  end: number
  section: number
}

/**
 * The page cut into the units that are ranked: its blocks (text between
 * blank lines), heading lines left out (their words count for the blocks
 * under them), long blocks in parts, short neighbours in one section joined.
 */
function cutUnits(text: string, paths: HeadingPaths): Unit[] {
  const headingStarts = new Set(paths.headings.map((heading) => heading.offset))
  const blocks: Unit[] = []
  const add = (start: number, end: number) => {
    while (start < end && /\s/.test(text[start])) start++
    while (end > start && /\s/.test(text[end - 1])) end--
    if (start < end) blocks.push({ start, end, section: paths.sectionAt(start) })
  }
  let start = 0
  for (const gap of text.matchAll(/\n[ \t]*\n\s*/g)) {
    splitLong(text, start, gap.index, add)
    start = gap.index + gap[0].length
  }
  splitLong(text, start, text.length, add)
  const units: Unit[] = []
  for (const block of blocks) {
    if (headingStarts.has(block.start) && !text.slice(block.start, block.end).includes('\n')) continue
    const last = units[units.length - 1]
    if (last && last.section === block.section && last.end - last.start < UNIT_MIN && block.end - last.start <= UNIT_MAX) last.end = block.end
    else units.push({ ...block })
  }
  return units
}

/** Hands a block to `add` whole, or in parts of at most UNIT_MAX: at line ends, else sentence ends, else spaces. */
function splitLong(text: string, start: number, end: number, add: (start: number, end: number) => void) {
  while (end - start > UNIT_MAX) {
    const window = text.slice(start, start + UNIT_MAX)
    let cut = -1
    for (const pattern of [/\n(?=[^\n]*$)/, /[.!?](?=\s[^.!?]*$)/, /\s(?=\S*$)/]) {
      const found = pattern.exec(window)
      if (found && found.index > UNIT_MAX / 3) {
        cut = found.index + 1
        break
      }
    }
    if (cut < 0) cut = UNIT_MAX
    if (/[\ud800-\udbff]/.test(text[start + cut - 1])) cut--
    add(start, start + cut)
    start += cut
  }
  add(start, end)
}

export interface RankOptions {
  maxChars: number
  paths: HeadingPaths
  /** Only blocks within these characters (the pages asked for) are ranked. */
  within?: { start: number; end: number }
}

export interface RankedPage {
  terms: string[]
  blocks: number
  matchingBlocks: number
  passages: RankedPassage[]
}

/**
 * The passages of the page that best match the query by BM25, in rank
 * order: at most PASSAGES_MAX, their text together within `maxChars` (a
 * first passage longer than that is cut, and says so); only passages that
 * share a word with the query. Local and lexical: no model, no network.
 */
export function rankPassages(text: string, query: string, options: RankOptions): RankedPage {
  const terms = [...new Set(rankTerms(query))]
  const { within } = options
  const units = within ? cutUnits(text, options.paths).filter((unit) => unit.start >= within.start && unit.end <= within.end) : cutUnits(text, options.paths)
  const wanted = new Set(terms)
  const headingCounts = new Map<number, Map<string, number>>()
  const countsOf = (words: string[]) => {
    const counts = new Map<string, number>()
    for (const word of words) if (wanted.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1)
    return counts
  }
  const stats = units.map((unit) => {
    const words = rankTerms(text.slice(unit.start, unit.end))
    let heading = headingCounts.get(unit.section)
    if (!heading) {
      heading = unit.section < 0 ? new Map() : countsOf(rankTerms(options.paths.at(options.paths.headings[unit.section].offset).join(' ')))
      headingCounts.set(unit.section, heading)
    }
    const counts = countsOf(words)
    for (const [word, count] of heading) counts.set(word, (counts.get(word) ?? 0) + HEADING_WEIGHT * count)
    return { unit, length: words.length, counts }
  })
  const average = stats.reduce((sum, stat) => sum + stat.length, 0) / Math.max(1, stats.length)
  const idf = new Map(terms.map((term) => {
    const containing = stats.filter((stat) => stat.counts.has(term)).length
    return [term, Math.log(1 + (stats.length - containing + 0.5) / (containing + 0.5))]
  }))
  const scored = stats
    .map((stat) => {
      let score = 0
      for (const [term, count] of stat.counts) score += idf.get(term)! * (count * (K1 + 1)) / (count + K1 * (1 - B + (B * stat.length) / Math.max(1, average)))
      return { unit: stat.unit, score }
    })
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.unit.start - b.unit.start)
  const passages: RankedPassage[] = []
  let used = 0
  for (const { unit, score } of scored) {
    if (passages.length === PASSAGES_MAX) break
    let end = unit.end
    const room = options.maxChars - used
    if (end - unit.start > room) {
      if (passages.length) continue
      end = unit.start + room
      if (/[\ud800-\udbff]/.test(text[end - 1]) && end - 1 > unit.start) end--
    }
    const passage: RankedPassage = { offset: unit.start, text: text.slice(unit.start, end), headings: options.paths.at(unit.start), score: Math.round(score * 1000) / 1000 }
    if (end < unit.end) passage.cut = true
    used += passage.text.length
    passages.push(passage)
  }
  return { terms, blocks: units.length, matchingBlocks: scored.length, passages }
}
