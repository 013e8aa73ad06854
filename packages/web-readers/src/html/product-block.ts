import { removeUnseen } from './dom-clean.js'
import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { measureText, nextNode } from './dom-walk.js'

/**
 * A product page's content is the product's block: its name, price,
 * description and specifications together. Readability, scoring prose,
 * often keeps one part of it (the description tab, a list of selling
 * points) and leaves the rest. On a page that declares one product
 * (page-type.ts), when the chosen content is short, this is the smallest
 * block of the page as it was before readability that holds both the
 * product's name and the content's longest text, below the body. The name
 * is an <h1>: the page's headline (one that is the title or a part of it),
 * or on a shop's product page (shop-signals.ts) its first <h1>, since
 * stores set the product's name apart from a title written for search
 * ("Jimmy" on a page titled "Jimmy: The Ultimate Device Opener, 301
 * Stainless Steel Blade"). The block is cleaned of what is never shown
 * only: the article clean-ups would take out what a product is (its
 * options, price and specification rows are short lines, forms and lists of
 * links); its buy box went before (buy-box.ts).
 *
 * Measured on WCXB's product pages (92): +0.012 on average, from ten pages
 * changed: seven better (an auction's item block 0.22 -> 0.69), three worse
 * (0.81 -> 0.69 where the block brings a shop's whole summary column). The
 * first <h1> as the name, +0.0041 (a sandal's page 0.33 -> 0.52, a device
 * opener 0.64 -> 0.76, a shirt +0.05), no page worse.
 */

/**
 * Content this long (characters) or longer is the product's description in
 * full: it stays. 3,000 first; with the buy box gone from the block and the
 * first <h1> as the name, 3,500 to 5,500 gained +0.0077 (earbuds' page 0.45
 * -> 0.84, a driver kit 0.57 -> 0.74, a bird feeder 0.34 -> 0.43, a toolkit
 * 0.58 -> 0.63), no page worse; 2,000 lost two pages (0.86 -> 0.70, 0.76 ->
 * 0.64); 6,500 took a guitar's page whole (0.92 -> 0.24).
 */
export const SHORT_CONTENT = 4500
/** The block must hold at least this many times the content's text, or it adds too little to be worth the chrome it brings (2 left out pages it helps; 1.5 was best of those tried). */
export const MIN_GAIN = 1.5
/** The text the content is found by: its longest text node, at least this long (shorter lines recur: "Add to cart", "Details"). */
const MIN_KEY_CHARS = 40

const collapse = (value: string) => value.replace(/\s+/g, ' ').trim()

/** A name is short: an <h1> of more text is not one. */
const MAX_NAME_CHARS = 300

/** The text of an <h1>, white space collapsed, when it can be a product's name (not empty, at most MAX_NAME_CHARS). */
export function headingText(heading: DomElement | undefined): string | undefined {
  const text = heading ? collapse(heading.textContent ?? '') : ''
  return text && text.length <= MAX_NAME_CHARS ? text : undefined
}

/** The longest text node below `root`, collapsed. */
function longestText(root: DomElement): string {
  let longest = ''
  for (let node: DomNode | null = root.firstChild; node; node = nextNode(node, root)) {
    if (node.nodeType !== TEXT_NODE) continue
    const text = collapse(node.textContent ?? '')
    if (text.length > longest.length) longest = text
  }
  return longest
}

/** The first <h1> below `root` whose text is `headline`, and the first text node that is `key`, in one walk. */
function findAnchors(root: DomElement, headline: string, key: string): { heading?: DomElement; text?: DomNode } {
  const found: { heading?: DomElement; text?: DomNode } = {}
  for (let node: DomNode | null = root.firstChild; node && !(found.heading && found.text); node = nextNode(node, root)) {
    if (!found.heading && node.nodeType === ELEMENT_NODE && (node as DomElement).localName === 'h1' && collapse(node.textContent ?? '') === headline) found.heading = node as DomElement
    else if (!found.text && node.nodeType === TEXT_NODE && collapse(node.textContent ?? '') === key) found.text = node
  }
  return found
}

/** The nearest element holding both nodes, below `root` (undefined when only `root` or above holds both). */
function commonBlock(one: DomNode, other: DomNode, root: DomElement): DomElement | undefined {
  const above = new Set<DomNode>()
  for (let node: DomNode | null = one; node && node !== root; node = node.parentNode) above.add(node)
  for (let node: DomNode | null = other; node && node !== root; node = node.parentNode) {
    if (above.has(node)) return node.nodeType === ELEMENT_NODE ? (node as DomElement) : undefined
  }
  return undefined
}

/**
 * The product's block, cleaned, or undefined when `content` stays: it is
 * long enough, or no block holds both anchors below the body, or the block
 * is not MIN_GAIN times the content.
 * `intact` is a copy of the body made before readability changed it; the
 * block is taken out of it.
 */
export function productBlock(intact: DomElement, content: DomElement, headline: string): DomElement | undefined {
  const contentLength = measureText(content).get(content)!.length
  if (contentLength >= SHORT_CONTENT) return undefined
  const key = longestText(content)
  if (key.length < MIN_KEY_CHARS) return undefined
  const { heading, text } = findAnchors(intact, headline, key)
  if (!heading || !text) return undefined
  const block = commonBlock(heading, text, intact)
  if (!block || block.localName === 'body' || block.localName === 'html') return undefined
  const length = measureText(block).get(block)!.length
  if (length < MIN_GAIN * contentLength) return undefined
  // a copy: `intact` stays whole for the product's sections when the block is not taken (product-sections.ts)
  const copy = (block as unknown as { cloneNode(deep: boolean): DomElement }).cloneNode(true)
  removeUnseen(copy)
  return measureText(copy).get(copy)!.length >= MIN_GAIN * contentLength ? copy : undefined
}
