import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { attributeOf, nextNode } from './dom-walk.js'

/**
 * What a page's body is built of, for the page type (page-type.ts) when the
 * page declares none: counts only, read by one walk before extraction
 * changes the tree. Code blocks are documentation's mark (on WCXB's
 * development split, 80% of its documentation pages have a `<code>`, 7% of
 * its articles); a control that adds to a cart beside a few prices is one
 * product's page (62% of its product pages, 1% of the rest but
 * collections); many prices are a grid of products (a collection's median
 * is 22).
 */
export interface PageStructure {
  /** `<pre>` blocks. */
  preBlocks: number
  /** `<code>` elements, inside `<pre>` or not. */
  codeElements: number
  /** Buttons, links and submit inputs whose label adds to a cart or buys (BUY_LABEL). */
  buyControls: number
  /** Short text nodes that are a price alone: a currency sign or code and a number (PRICE). */
  prices: number
  /** The walk stopped at WALK_STEP_LIMIT nodes: the counts are of the part walked. */
  walkCut: boolean
}

/** Nodes stepped over at most (the tree itself is capped at build: build-tree.ts). */
const WALK_STEP_LIMIT = 200_000
/** A price stands alone in its text node: longer text is a sentence that mentions one. */
const PRICE_MAX_CHARS = 40
/** Characters of a control's label read. */
const LABEL_CHARS = 60
const UNSEEN = new Set(['script', 'style', 'noscript', 'template', 'svg'])
const CONTROLS = new Set(['button', 'a', 'input'])
const CURRENCY = '[$€£¥₹₩₽]|US\\$|A\\$|C\\$|USD|EUR|GBP|AUD|CAD|CHF|JPY|INR|kr|zł|Kč|Rs\\.?'
/** A price alone: "$19.99", "€ 1.299,00", "From £25", "19,99 €", "1 299 kr". */
const PRICE = new RegExp(`^(?:[^\\d]{0,12}?)(?:${CURRENCY})\\s?\\d[\\d.,\\s]*$|^\\d[\\d.,\\s]*\\s?(?:${CURRENCY})$`, 'u')
/** Labels of the control that puts one product in a cart, in the languages of the shops seen. */
const BUY_LABEL = /\b(?:add to (?:cart|bag|basket|trolley)|add to my bag|buy (?:it )?now|in den warenkorb|ajouter au panier|añadir al carrito|aggiungi al carrello|in winkelwagen)\b/i

function label(element: DomElement): string {
  if (element.localName === 'input') {
    const type = attributeOf(element, 'type')?.toLowerCase()
    return type === 'submit' || type === 'button' ? (attributeOf(element, 'value') ?? '') : ''
  }
  return (element.textContent ?? '').slice(0, LABEL_CHARS)
}

/** The counts of PageStructure below `body`, in one walk (scripts, styles and templates skipped). */
export function readPageStructure(body: DomElement): PageStructure {
  const structure: PageStructure = { preBlocks: 0, codeElements: 0, buyControls: 0, prices: 0, walkCut: false }
  let steps = 0
  for (let node: DomNode | null = body.firstChild; node; ) {
    if (++steps > WALK_STEP_LIMIT) {
      structure.walkCut = true
      break
    }
    let skip = false
    if (node.nodeType === TEXT_NODE) {
      const text = node.textContent ?? ''
      if (text.length <= PRICE_MAX_CHARS * 2) {
        const trimmed = text.trim()
        if (trimmed && trimmed.length <= PRICE_MAX_CHARS && PRICE.test(trimmed)) structure.prices++
      }
    } else if (node.nodeType === ELEMENT_NODE) {
      const element = node as DomElement
      const name = element.localName
      if (UNSEEN.has(name)) skip = true
      else if (name === 'pre') structure.preBlocks++
      else if (name === 'code') structure.codeElements++
      else if (CONTROLS.has(name) && BUY_LABEL.test(label(element))) {
        structure.buyControls++
        // its label is read; what it holds is no price of the page's
        skip = true
      }
    }
    node = nextNode(node, body, skip)
  }
  return structure
}
