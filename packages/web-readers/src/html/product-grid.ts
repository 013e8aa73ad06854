import type { DomElement, DomNode } from './dom.js'
import { CHROME_TAGS, removeUnseen } from './dom-clean.js'
import { descendants, textReaches } from './dom-walk.js'
import { isPrice } from './shop-signals.js'

/**
 * A category of products read as its prose: a shop's category page carries,
 * beside its grid of products, an introduction or a text written for search
 * engines ("Our selection of dress shoes...", "The best gym tops let you
 * focus..."), and readability keeps that text, the one block of
 * sentences, and none of the products, whose names are links beside a
 * price. When a page judged a category of products (page-type.ts) is read
 * as a short text with few prices while the page shows a grid of them, the
 * grid is kept instead (productGrid): the innermost element holding most of
 * the page's prices, in the page read afresh (readability has changed it).
 *
 * Measured on WCXB dev (1,358 pages) and ScrapingHub (181 articles), after
 * blurb-page.ts: collection 0.686 -> 0.701 (0651 0.11 -> 0.74, 1435 0.19 ->
 * 0.73, 0635 0.29 -> 0.46), product +0.002 (a product page judged a
 * category, 0.21 -> 0.38), no page worse, no other type changed,
 * ScrapingHub output identical. WCXB's references disagree on such pages:
 * some hold the grid, some the guide; the guide wins when it is long
 * (MAX_CHOSEN).
 */

/** Prices the chosen content holds at most: more and it holds products already. */
const CHOSEN_PRICES = 2
/** Prices a grid shows at least. */
const GRID_PRICES = 6
/**
 * The grid holds this share of the page's prices at least: a page of parts
 * in groups keeps all its groups (0.5 kept one group of an index of parts:
 * 0.24; 0.8: 0.74; 1: a product's page judged a category lost 0.19)...
 */
const GRID_SHARE = 0.8
/** ... else, when the prices lie in separate parts of the page (none holds GRID_SHARE), the part that holds half of them (without it a category lost 0.17). */
const SPLIT_GRID_SHARE = 0.5
/**
 * The chosen content is under this many characters: a category's intro or
 * short guide, not its own article (without this bound three categories
 * whose content is the guide they publish lost 0.81-0.93, and a service
 * page judged a category 0.65; 2,000: a category lost 0.54; 4,000: the same).
 */
const MAX_CHOSEN = 3000
/** Prices read at most, and levels climbed from each (a page of 10,000 products stays linear). */
const MAX_PRICES = 2_000
const MAX_LEVELS = 40

function countPrices(root: DomElement, limit: number): number {
  let count = 0
  for (const element of descendants(root)) if (isPrice(element) && ++count >= limit) break
  return count
}

/**
 * The page's grid of products in `readBody()` (the page read afresh), to
 * keep instead of `chosen`, or undefined. The page is read again only when
 * `chosen` holds at most CHOSEN_PRICES prices.
 */
export function productGrid(chosen: DomElement, readBody: () => DomElement | undefined | null): DomElement | undefined {
  if (textReaches(chosen, MAX_CHOSEN) || countPrices(chosen, CHOSEN_PRICES + 1) > CHOSEN_PRICES) return undefined
  const body = readBody()
  if (!body) return undefined
  const prices: DomElement[] = []
  for (const element of descendants(body)) {
    if (isPrice(element)) prices.push(element)
    if (prices.length >= MAX_PRICES) break
  }
  if (prices.length < GRID_PRICES) return undefined
  // each price counts toward its ancestors (MAX_LEVELS up); the grid is the deepest holding GRID_SHARE of them, else SPLIT_GRID_SHARE
  const held = new Map<DomNode, number>()
  for (const price of prices) {
    let level = 0
    for (let node = price.parentNode; node && node !== body && level < MAX_LEVELS; node = node.parentNode, level++) held.set(node, (held.get(node) ?? 0) + 1)
  }
  const depth = (node: DomNode) => {
    let level = 0
    for (let parent = node.parentNode; parent && parent !== body; parent = parent.parentNode) level++
    return level
  }
  /** The deepest element holding `share` of the prices (those that do are one line of ancestors, a few at most beside it). */
  const deepestHolding = (share: number): DomElement | undefined => {
    const needed = Math.max(GRID_PRICES, Math.ceil(share * prices.length))
    let found: DomElement | undefined
    let deepest = -1
    for (const [node, count] of held) {
      if (count < needed) continue
      const level = depth(node)
      if (level > deepest) [found, deepest] = [node as DomElement, level]
    }
    return found
  }
  const grid = deepestHolding(GRID_SHARE) ?? deepestHolding(SPLIT_GRID_SHARE)
  if (!grid) return undefined
  removeUnseen(grid, CHROME_TAGS)
  grid.remove()
  return grid
}
