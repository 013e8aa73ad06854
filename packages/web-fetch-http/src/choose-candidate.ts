import type { DomElement } from './dom.js'
import { MIN_ITEMS, listItems } from './list-items.js'
import { type TextBlock, textBlocks } from './text-blocks.js'

/** Two main-content candidates, by different methods, and what is known of each. */
export interface Candidates {
  /** readability's choice, cleaned. */
  scored: DomElement
  /** The container the markup names as the article, cleaned (container-candidate.ts). */
  named: DomElement
}

function length(blocks: TextBlock[]): number {
  let total = 0
  for (const block of blocks) total += block.text.length
  return total
}

/**
 * Whether a run of one candidate is in the other: the same run (both come
 * from the same page), or, split differently, inside the other's text.
 */
function isShared(block: TextBlock, runs: Set<string>, text: string): boolean {
  return runs.has(block.text) || text.includes(block.text)
}

/** The share of `blocks`' characters whose runs are also in the other candidate's. */
function sharedShare(blocks: TextBlock[], runs: Set<string>, text: string): number {
  let shared = 0
  for (const block of blocks) if (isShared(block, runs, text)) shared += block.text.length
  return shared / Math.max(1, length(blocks))
}

/** How many of `items` hold at least one of `blocks`. */
function itemsHolding(items: Set<DomElement>, blocks: TextBlock[]): number {
  const holding = new Set<DomElement>()
  for (const block of blocks) {
    for (let node: DomElement | null = block.element; node; node = node.parentNode as DomElement | null) {
      if (items.has(node)) {
        holding.add(node)
        break
      }
    }
  }
  return holding.size
}

/** The shorter candidate wins when this share of its text is also in the longer one. */
const CONTAINED = 0.9

/**
 * Which candidate to keep. When the shorter one is (nearly) all inside the
 * longer one, the two methods agree on the article and differ only in what
 * surrounds it: the longer one's extra is what one method took and the
 * other left out (teasers, related stories, bylines, newsletter boxes), so
 * the shorter wins; but on a page that is a list of items (listItems), when
 * what the longer adds lies inside the items, it is their own details, and
 * the longer wins. When
 * neither holds the other, they found different parts of the page, and
 * readability's scoring is kept.
 */
export function chooseCandidate({ scored, named }: Candidates): 'scored' | 'named' {
  const scoredBlocks = textBlocks(scored)
  const namedBlocks = textBlocks(named)
  const scoredLength = length(scoredBlocks)
  const namedLength = length(namedBlocks)
  if (namedLength === 0) return 'scored'
  if (scoredLength === 0) return 'named'
  const [shorter, longer, shorterName, longerName] =
    namedLength < scoredLength ? [namedBlocks, scoredBlocks, 'named', 'scored'] as const : [scoredBlocks, namedBlocks, 'scored', 'named'] as const
  const contained = sharedShare(shorter, new Set(longer.map((block) => block.text)), longer.map((block) => block.text).join('\n')) >= CONTAINED
  if (!contained) return 'scored'
  // On a page of many items, what the longer one adds inside the items is theirs (who posted, when, the votes).
  const items = listItems(longerName === 'named' ? named : scored)
  if (items) {
    const runs = new Set(shorter.map((block) => block.text))
    const shorterText = shorter.map((block) => block.text).join('\n')
    const extra = longer.filter((block) => !isShared(block, runs, shorterText))
    if (itemsHolding(items, extra) >= MIN_ITEMS) return longerName
  }
  return shorterName
}
