import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { nextNode, textReaches } from './dom-walk.js'
import { readShopSignals } from './shop-signals.js'

/**
 * A product page's buy box: the basket button with what a reader sets
 * before pressing it (size and colour pickers, a quantity, a protection
 * plan, "pick up today or ship") and what it costs (the price, the
 * instalments, "in 50 people's carts"). The annotators of WCXB leave it
 * out; readability keeps its lines when they sit in the block it chooses,
 * and the product's block (product-block.ts) takes it whole.
 *
 * The box is the largest block around a basket button (shop-signals.ts)
 * below the body of at most MAX_BOX_CHARS characters holding no heading,
 * no <main> or <article> and no paragraph of prose: a heading or a
 * paragraph is the product's description, which often shares a column
 * with the box. Removed before the candidates are chosen (extract-html.ts),
 * on a shop's product page only, so readability scores the page without it.
 *
 * Measured on WCXB dev's 92 product pages: +0.0039 (a toolkit 0.54 -> 0.67,
 * a driver kit 0.49 -> 0.57, a seed packet 0.75 -> 0.81, a road case 0.52
 * -> 0.57), no page worse; the same from 300 to 1,000 characters (1,500:
 * a mat's box took its specifications, 0.86 -> 0.71). Without the heading
 * stop, up to 600 characters gained more (+0.0068, a blender's plan and
 * delivery choices under "How do you want your item?") and 700 took the
 * whole of a road case's page, whose reference is its buy box (0.52 ->
 * 0.24): kept, as the rule that does not depend on a number's luck.
 */

/** A buy box is small: a block of more text is the page around it. */
export const MAX_BOX_CHARS = 600
/** What a buy box never holds: a heading (the description's sections), the page's main area or article. */
const NOT_IN_BOX = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'main', 'article'])
/** A paragraph of prose: this long, and ending a sentence. */
const PROSE_CHARS = 80
const SENTENCE_END = /[.!?。！？]["'”’)\]]*$/u

/** Whether `paragraph` is prose (its text read only when it is no longer than a box). */
function isProse(paragraph: DomElement): boolean {
  if (!textReaches(paragraph, PROSE_CHARS) || textReaches(paragraph, MAX_BOX_CHARS + 1)) return false
  return SENTENCE_END.test((paragraph.textContent ?? '').trim())
}

/**
 * The characters of text `node` adds to a box (each text node's, trimmed),
 * or -1 when it holds what a box never holds (NOT_IN_BOX, a paragraph of
 * prose) or more than `budget` characters. Read in document order until
 * that is known.
 */
function addedBy(node: DomNode, budget: number): number {
  let chars = 0
  for (let current: DomNode | null = node; current; current = nextNode(current, node)) {
    if (current.nodeType === TEXT_NODE) {
      chars += (current.textContent ?? '').trim().length
      if (chars > budget) return -1
    } else if (current.nodeType === ELEMENT_NODE) {
      const element = current as DomElement
      if (NOT_IN_BOX.has(element.localName) || (element.localName === 'p' && isProse(element))) return -1
    }
  }
  return chars
}

/**
 * The buy box around `button`, below `root` (the button itself when nothing
 * around it is one): at each step up, only what the parent adds beside the
 * box so far is read, so a climb reads the box it ends at once.
 */
function boxAround(button: DomElement, root: DomElement): DomElement {
  let box = button
  let chars = addedBy(button, MAX_BOX_CHARS)
  if (chars < 0) return button
  for (let parent = button.parentNode as DomElement | null; parent && parent !== root && parent.nodeType === ELEMENT_NODE; parent = parent.parentNode as DomElement | null) {
    if (NOT_IN_BOX.has(parent.localName)) break
    let total = chars
    for (let child = parent.firstChild; child && total >= 0; child = child.nextSibling) {
      if (child === box) continue
      const added = addedBy(child, MAX_BOX_CHARS - total)
      total = added < 0 ? -1 : total + added
    }
    if (total < 0) break
    chars = total
    box = parent
  }
  return box
}

/**
 * Buy boxes looked for: around the first basket buttons, the product's own
 * (the page's, a bar that follows the reader, a bundle's); later ones are
 * other products' cards. Measured: the first 2, +0.0016; 4, +0.0038; 8,
 * +0.0034 (a kit's box of accessories went, 0.58 -> 0.68, and a mat's
 * comparison of five mats lost its columns, 0.86 -> 0.71).
 */
const MAX_BOXES = 4

/**
 * Removes the buy box around each of the first MAX_BOXES of `buttons` (the
 * basket buttons below `root`, the page's body); returns how many boxes went.
 */
export function removeBuyBoxes(root: DomElement, buttons: DomElement[] = readShopSignals(root).buys): number {
  let removed = 0
  for (const button of buttons.slice(0, MAX_BOXES)) {
    // a box removed before can hold this button
    let attached = false
    for (let node: DomNode | null = button; node && !attached; node = node.parentNode) attached = node === root
    if (!attached) continue
    boxAround(button, root).remove()
    removed++
  }
  return removed
}
