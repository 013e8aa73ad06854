import { type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { holdsOf } from './built-document.js'
import { attributeOf, byTag, measureText, nextNode } from './dom-walk.js'

/**
 * A choice menu: a block of radio buttons or checkboxes whose text is their
 * labels. A category page's facet filters ("Brand: Acme (12)"), a review
 * filter ("English: Very Positive (220,031)"), a settings panel: controls
 * for reading the page, not what it says. Readability counts every comma of
 * a block's text in its favour, so a menu of counts with thousands
 * separators outscores the product's description (a game store's language
 * filter, 28 labels, was chosen over the "About this game" it sits beside).
 *
 * Removed before either candidate is chosen, so neither can be one; the
 * outermost block that is one goes whole.
 */

/** Fewer controls than this are a form's few options (a newsletter's consent box, a yes/no poll), left alone. */
export const MIN_CHOICES = 5
/**
 * More than this share of the block's text in labels: the block is its
 * controls. Half was too little: a documentation site whose navigation is
 * 800 checkbox-and-label folders had half the page's text in labels, and
 * the whole page went.
 */
export const LABEL_SHARE = 0.75
/**
 * At most this many characters a label, on average: a control's name and
 * its count. Longer labels are content (a stylesheet-only tab bar wraps
 * each tab's panel in its label; a quiz's answers are sentences).
 */
export const MAX_MEAN_LABEL = 60

const CHOICE = /^(?:radio|checkbox)$/i
/** Quick test of the source: most pages have no such control, and pay for no walk. */
const CHOICE_IN_SOURCE = /type\s*=\s*["']?(?:radio|checkbox)/i

interface Tally {
  choices: number
  labels: number
  labelChars: number
}

function tallyOf(tallies: Map<DomElement, Tally>, element: DomElement): Tally {
  let tally = tallies.get(element)
  if (!tally) tallies.set(element, (tally = { choices: 0, labels: 0, labelChars: 0 }))
  return tally
}

/** Adds to the tally of every element from `element`'s parent up to `root`. */
function addToAncestors(tallies: Map<DomElement, Tally>, element: DomElement, root: DomElement, add: (tally: Tally) => void) {
  for (let node = element.parentNode; node; node = node.parentNode) {
    if (node.nodeType !== ELEMENT_NODE) break
    add(tallyOf(tallies, node as DomElement))
    if (node === root) break
  }
}

/**
 * Removes the choice menus below `root` (the page's body); `html` is the
 * page's source, looked at first. Returns how many were removed. One walk
 * for the text measures, then one climb from each control and label to
 * the root: the tree is at most MAX_DEPTH deep (flatten-deep.ts).
 */
export function removeChoiceMenus(root: DomElement, html: string): number {
  if (!(holdsOf(root)?.choice ?? CHOICE_IN_SOURCE.test(html))) return 0
  // fewer controls than a menu has anywhere: the page is not measured (a sign-up box's one checkbox)
  const inputs = byTag(root, 'input')
  let choices = 0
  for (let index = 0; index < inputs.length && choices < MIN_CHOICES; index++) if (CHOICE.test(attributeOf(inputs[index]!, 'type') ?? '')) choices++
  if (choices < MIN_CHOICES) return 0
  const tallies = new Map<DomElement, Tally>()
  const labels: DomElement[] = []
  const measures = measureText(root, (element) => {
    if (element.localName === 'label') labels.push(element)
    else if (element.localName === 'input' && CHOICE.test(attributeOf(element, 'type') ?? '')) addToAncestors(tallies, element, root, (tally) => tally.choices++)
  })
  for (const label of labels) {
    const chars = measures.get(label)?.chars ?? 0
    addToAncestors(tallies, label, root, (tally) => {
      tally.labels++
      tally.labelChars += chars
    })
  }
  let removed = 0
  for (let node: DomNode | null = root.firstChild; node; ) {
    const element = node.nodeType === ELEMENT_NODE ? (node as DomElement) : undefined
    const tally = element && tallies.get(element)
    if (element && tally && isChoiceMenu(tally, measures.get(element)?.chars ?? 0)) {
      const next = nextNode(node, root, true)
      element.remove()
      removed++
      node = next
      continue
    }
    // below an element with too few controls, no block can have enough
    node = nextNode(node, root, !!element && (!tally || tally.choices < MIN_CHOICES))
  }
  return removed
}

function isChoiceMenu(tally: Tally, chars: number): boolean {
  return tally.choices >= MIN_CHOICES && tally.labels > 0 && tally.labelChars > LABEL_SHARE * chars && tally.labelChars / tally.labels <= MAX_MEAN_LABEL
}
