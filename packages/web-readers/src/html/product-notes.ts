import { attributeWords } from './boilerplate-words.js'
import { type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { hasDescendant, nextNode } from './dom-walk.js'

/**
 * A maker's product page ends with its notes: a numbered list of the
 * conditions its claims were measured under ("Based on lab test
 * conditions...", "Sold separately", "Results may vary", trademarks), each
 * the target of a mark in the text above. The annotators of WCXB leave them
 * out; readability keeps them with the content they follow (a phone's page:
 * 4,000 characters of notes beside 13,000 of content, 0.37). On a shop's
 * product page (shop-signals.ts), a block whose class or id word names
 * disclaimers or footnotes and that holds a list goes from the content. A
 * single line of conditions under a price (a discount's terms, "Price shown
 * in USD") holds no list and stays: the annotators keep it.
 *
 * Measured on WCXB dev's 92 product pages: +0.003 (the phone's page 0.37 ->
 * 0.64), no page worse. Without the list, a service's pricing page judged a
 * product lost its discount's terms (0.92 -> 0.91) and a shop's page of
 * computers its footnotes the annotators kept (0.78 -> 0.77).
 */

/** Class and id words that name notes. */
const NOTE_WORDS = new Set(['disclaimer', 'disclaimers', 'footnote', 'footnotes'])
const LISTS = new Set(['ol', 'ul'])
/** Never inside the notes: the page's headline or main area. */
const CONTENT = new Set(['h1', 'main'])
/** Nodes walked at most; content past that point is left as it is. */
export const MAX_NODES = 200_000

/** Removes from `root` (the content chosen on a shop's product page) each outermost block of notes; returns how many went. */
export function removeProductNotes(root: DomElement): number {
  const notes: DomElement[] = []
  let walked = 0
  for (let node: DomNode | null = root.firstChild; node && walked++ < MAX_NODES; ) {
    if (node.nodeType === ELEMENT_NODE && attributeWords(node as DomElement).some((word) => NOTE_WORDS.has(word)) && hasDescendant(node, LISTS) && !hasDescendant(node, CONTENT)) {
      notes.push(node as DomElement)
      node = nextNode(node, root, true)
      continue
    }
    node = nextNode(node, root)
  }
  for (const element of notes) element.remove()
  return notes.length
}
