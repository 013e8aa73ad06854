import { cleanCandidate } from './container-candidate.js'
import type { DomElement } from './dom.js'
import { workDone } from './dom-walk.js'
import { MIN_ITEMS, MIN_ITEM_CHARS, listItems } from './list-items.js'
import { SENTENCE_END } from './prune-content.js'
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
 * Work allowed to the substring checks of one SharedRuns, per character of
 * its text and of the runs asked about: linear in the page, with room for
 * every check an ordinary page needs (a few hundred runs split differently).
 */
export const SCAN_FACTOR = 256

/**
 * Whether a run of one candidate is in the other: the same run (both come
 * from the same page), or, split differently, inside the other's text. A
 * substring check scans the other's whole text, so a page of many runs that
 * are in neither form (150,000 sibling paragraphs beside a 5 KB article:
 * 718 million characters scanned) would cost runs x text: each distinct run
 * is checked once, and past SCAN_FACTOR x (text + runs asked) characters
 * scanned only the same run counts.
 */
export class SharedRuns {
  private readonly runs: Set<string>
  private readonly text: string
  private readonly answers = new Map<string, boolean>()
  private budget: number
  /** Characters scanned by this one's substring checks so far. */
  scanned = 0

  constructor(blocks: TextBlock[]) {
    this.runs = new Set(blocks.map((block) => block.text))
    this.text = blocks.map((block) => block.text).join('\n')
    this.budget = SCAN_FACTOR * this.text.length
  }

  has(block: TextBlock): boolean {
    if (this.runs.has(block.text)) return true
    this.budget += SCAN_FACTOR * block.text.length
    const known = this.answers.get(block.text)
    if (known !== undefined) return known
    if (this.scanned + this.text.length > this.budget) return false
    this.scanned += this.text.length
    workDone.scannedChars += this.text.length
    const found = this.text.includes(block.text)
    this.answers.set(block.text, found)
    return found
  }

  /** The share of `blocks`' characters whose runs are also here. */
  share(blocks: TextBlock[]): number {
    let shared = 0
    for (const block of blocks) if (this.has(block)) shared += block.text.length
    return shared / Math.max(1, length(blocks))
  }
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
 * A container the markup names, inside readability's choice, with less than
 * this share of its text is a part of the page (an introduction, a hero
 * block, one section), not the article with less around it, when what
 * readability adds is prose. Measured on both benchmarks: on WCXB dev the
 * container was kept under a fifth of readability's choice on ten pages, and
 * readability's choice scores better on six (0.09-0.36 -> 0.43-1.00); on
 * ScrapingHub the smallest share at which the container is right is 0.22.
 */
const PART = 0.2

/**
 * When the two found different text and readability's is under this share
 * of the markup's container, readability scored a block elsewhere on the
 * page (an introduction, a hero, a sidebar, one card of a grid) over the
 * page's main area: the container wins. Measured on WCXB dev (simulated from
 * the candidates, then by the benchmark): readability's choice is then under
 * 0.1 F1 on most such listing, collection and product pages and the
 * container 0.6-1.0; at 0.5 listing +0.037, at 0.7 +0.052 with collection,
 * product and forum up too; on ScrapingHub no page has two candidates that
 * differ so. Only a short block (under ELSEWHERE_CHARS): a longer text
 * elsewhere is an article readability found beside a list (of comments, of
 * other stories), and the four pages where the container lost so (article
 * and collection pages, 0.77-1.00 -> 0.14-0.37) had 2,070-9,600 characters.
 */
const ELSEWHERE = 0.7
const ELSEWHERE_CHARS = 2000

/** The blocks of `longer` that `shorter` does not hold. */
function added(longer: TextBlock[], shorter: TextBlock[]): TextBlock[] {
  const inShorter = new SharedRuns(shorter)
  return longer.filter((block) => !inShorter.has(block))
}

/** Whether `blocks` are mostly outside links (prose, not the menus and teasers of a listing). */
function mostlyProse(blocks: TextBlock[]): boolean {
  let linkChars = 0
  for (const block of blocks) linkChars += block.linkChars
  return linkChars * 2 < length(blocks)
}

/**
 * Which candidate to keep. When the shorter one is (nearly) all inside the
 * longer one, the two methods agree on the article and differ only in what
 * surrounds it: the longer one's extra is what one method took and the
 * other left out (teasers, related stories, bylines, newsletter boxes), so
 * the shorter wins; but on a page that is a list of items (listItems), when
 * what the longer adds lies inside the items, it is their own details, and
 * the longer wins; and when the shorter is the markup's container and under
 * PART of readability's prose, it is a part of the page and readability's
 * choice wins; when readability's is under PART of the container, it is a
 * part of the page (a listing's intro, its first card) and the container
 * wins. When neither holds the other, they found different parts of the
 * page, and readability's scoring is kept, unless it is a short block under
 * ELSEWHERE of the container (a block beside the page's main area).
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
  const contained = new SharedRuns(longer).share(shorter) >= CONTAINED
  if (!contained) return scoredLength < ELSEWHERE * namedLength && scoredLength < ELSEWHERE_CHARS ? 'named' : 'scored'
  // On a page of many items, what the longer one adds inside the items is theirs (who posted, when, the votes).
  // What the longer one adds, found once and only when a rule below asks.
  let extra: TextBlock[] | undefined
  const extraBlocks = () => (extra ??= added(longer, shorter))
  const items = listItems(longerName === 'named' ? named : scored)
  if (items && itemsHolding(items, extraBlocks()) >= MIN_ITEMS) return longerName
  // The markup's container is a small part of readability's prose: a part of the page, not its article.
  if (shorterName === 'named' && namedLength < PART * scoredLength && mostlyProse(extraBlocks())) return 'scored'
  // Readability's choice is a small part of the markup's main area: one block of a listing (its intro, its first card), not the page.
  if (shorterName === 'scored' && scoredLength < PART * namedLength) return 'named'
  return shorterName
}

/** The chosen candidate is a fragment of the page's list when the list, cleaned, is this many times longer. */
const FRAGMENT = 1.5

/** Text to read rather than a teaser's headline: long enough, ending a sentence, mostly outside links. */
function isProse(block: TextBlock): boolean {
  return block.text.length >= MIN_ITEM_CHARS && block.linkChars * 2 < block.text.length && SENTENCE_END.test(block.text)
}

/**
 * The page's list (listCandidate), cleaned, when the chosen candidate is a
 * fragment of it: CONTAINED of the chosen text is in the list, the list's
 * text is at least FRAGMENT times the chosen one's, and what the list adds
 * is mostly outside links and includes prose in at least two of its items
 * (not the headlines, bylines and dates of teasers: a news item among links
 * to other news, an article in a column of links to more).
 * Readability, or the markup's container, kept one item (or a few) of a
 * page of many (a thread, answers, results, reviews): every item is kept,
 * and the chrome around the list still dropped. A chosen candidate
 * elsewhere on the page (an article above a list of comments or teasers) is
 * not in the list, and stays. When the chosen text lies in MIN_ITEMS items
 * or more, readability chose the list itself and its cleaning of link-dense
 * blocks took what the items say in links (a best-seller list read as its
 * ranks and "3 formats available": the titles, authors and prices gone):
 * the list is kept whatever it adds. On WCXB dev three pages, 0.16-0.50 ->
 * 0.61-0.98, no page worse; on ScrapingHub no page widens so.
 */
export function widenToList(chosen: DomElement, list: DomElement | undefined): DomElement | undefined {
  if (!list) return undefined
  const chosenBlocks = textBlocks(chosen)
  const chosenLength = length(chosenBlocks)
  if (chosenLength === 0 || (list.textContent ?? '').length < FRAGMENT * chosenLength) return undefined
  cleanCandidate(list)
  const listBlocks = textBlocks(list)
  if (length(listBlocks) < FRAGMENT * chosenLength) return undefined
  if (new SharedRuns(listBlocks).share(chosenBlocks) < CONTAINED) return undefined
  const extra = added(listBlocks, chosenBlocks)
  const items = new Set<DomElement>()
  for (let child = list.firstChild; child; child = child.nextSibling) if (child.nodeType === 1) items.add(child as DomElement)
  const extraSet = new Set(extra)
  // the chosen text spans the items already: readability kept the list and its cleaning took the items' links (titles, names, prices)
  if (itemsHolding(items, listBlocks.filter((block) => !extraSet.has(block))) >= MIN_ITEMS) return list
  if (!mostlyProse(extra)) return undefined
  return itemsHolding(items, extra.filter(isProse)) >= MIN_ITEMS - 1 ? list : undefined
}
