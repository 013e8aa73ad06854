import { type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { nextNode, textReaches } from './dom-walk.js'

/**
 * A shop's product page shows other products it is paid to show, each card
 * marked "Sponsored": a furniture shop's chair page opens on six cards of
 * another chair, name, price and the mark, before the chair's own name.
 * They are advertisements, not the product. On a shop's product page
 * (shop-signals.ts), each element whose whole text is the mark goes with
 * its card: the largest block around it of at most MAX_CARD_CHARS that
 * holds no other mark (a row of cards holds one mark a card, so the row
 * stays and each card goes on its own).
 *
 * Measured on WCXB dev's 92 product pages: +0.0014, three pages changed,
 * none worse (the chair's 0.60 -> 0.65, a blender's 0.67 -> 0.74, a
 * graphics card's 0.68 -> 0.70); no other page of either benchmark changes.
 * A heading "Sponsored products" over a row of cards is the suggestions'
 * rule (recommendations.ts).
 */

/** The whole text of a mark. */
const MARK = /^(?:sponsored|advertisement|promoted|ad)$/i
/** A card is short: a block of more text is the page around it. */
export const MAX_CARD_CHARS = 300
/** A mark's element holds this many characters at most (the mark and white space). */
const MAX_MARK_CHARS = 40
/** Nodes walked at most; content past that point is left as it is. */
export const MAX_NODES = 200_000

/** Marks looked at most. */
export const MAX_MARKS = 500

/** Removes each sponsored card below `root` (the content chosen on a shop's product page); returns how many went. */
export function removeSponsoredCards(root: DomElement): number {
  const marks: DomElement[] = []
  let walked = 0
  for (let node: DomNode | null = root.firstChild; node && walked++ < MAX_NODES && marks.length < MAX_MARKS; ) {
    const element = node as DomElement
    if (node.nodeType === ELEMENT_NODE && node.firstChild && !textReaches(element, MAX_MARK_CHARS) && MARK.test((element.textContent ?? '').trim())) {
      marks.push(element)
      node = nextNode(node, root, true)
      continue
    }
    node = nextNode(node, root)
  }
  if (!marks.length) return 0
  // how many marks each block holds
  const held = new Map<DomElement, number>()
  for (const mark of marks) {
    for (let parent = mark.parentNode as DomElement | null; parent && parent !== root && parent.nodeType === ELEMENT_NODE; parent = parent.parentNode as DomElement | null) {
      held.set(parent, (held.get(parent) ?? 0) + 1)
    }
  }
  const cards = new Set<DomElement>()
  for (const mark of marks) {
    let card = mark
    for (let parent = card.parentNode as DomElement | null; parent && parent !== root && parent.nodeType === ELEMENT_NODE; parent = parent.parentNode as DomElement | null) {
      if ((held.get(parent) ?? 0) > 1 || textReaches(parent, MAX_CARD_CHARS + 1)) break
      card = parent
    }
    cards.add(card)
  }
  for (const card of cards) card.remove()
  return cards.size
}
