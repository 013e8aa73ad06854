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
 * product's name (the page's headline, its <h1>) and the content's longest
 * text, below the body. It is cleaned of what is never shown only: the
 * article clean-ups would take out what a product is (its options, price
 * and specification rows are short lines, forms and lists of links).
 *
 * Measured on WCXB's product pages (92): +0.012 on average, from ten pages
 * changed: seven better (an auction's item block 0.22 -> 0.69), three worse
 * (0.81 -> 0.69 where the block brings a shop's whole summary column).
 */

/** Content this long (characters) or longer is the product's description in full: it stays. */
export const SHORT_CONTENT = 3000
/** The block must hold at least this many times the content's text, or it adds too little to be worth the chrome it brings (2 left out pages it helps; 1.5 was best of those tried). */
export const MIN_GAIN = 1.5
/** The text the content is found by: its longest text node, at least this long (shorter lines recur: "Add to cart", "Details"). */
const MIN_KEY_CHARS = 40

const collapse = (value: string) => value.replace(/\s+/g, ' ').trim()

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
  block.remove()
  removeUnseen(block)
  return measureText(block).get(block)!.length >= MIN_GAIN * contentLength ? block : undefined
}
