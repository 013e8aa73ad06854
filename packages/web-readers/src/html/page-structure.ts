import { type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { nextNode } from './dom-walk.js'
import { isBuyControl, isPrice } from './shop-signals.js'

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
  /** Basket buttons: controls whose label adds to a cart or buys (shop-signals.ts, isBuyControl). */
  buyControls: number
  /** Elements that are a price alone (shop-signals.ts, isPrice). */
  prices: number
  /** The walk stopped at WALK_STEP_LIMIT nodes: the counts are of the part walked. */
  walkCut: boolean
}

/** Nodes stepped over at most (the tree itself is capped at build: build-tree.ts). */
const WALK_STEP_LIMIT = 200_000
const UNSEEN = new Set(['script', 'style', 'noscript', 'template', 'svg'])

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
    if (node.nodeType === ELEMENT_NODE) {
      const element = node as DomElement
      const name = element.localName
      if (UNSEEN.has(name)) skip = true
      else if (name === 'pre') structure.preBlocks++
      else if (name === 'code') structure.codeElements++
      else if (isBuyControl(element)) {
        structure.buyControls++
        // its label is read; what it holds is no price of the page's
        skip = true
      } else if (isPrice(element)) structure.prices++
    }
    node = nextNode(node, body, skip)
  }
  return structure
}
