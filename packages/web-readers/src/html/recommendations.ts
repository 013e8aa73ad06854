import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { hasDescendant, measureText, nextNode } from './dom-walk.js'

/**
 * A store's suggestions of other things to buy: "You may also like",
 * "Similar items", "Frequently bought together", "Complete the look". Their
 * cards are other products' names, prices and links, never the product's:
 * on WCXB's development split a product page read as its jacket and then as
 * forty other jackets, and a listing as a carousel of "Recently viewed".
 * readability drops most of them by their class names; the markup's
 * container, the product's block and a list of items keep them. What goes
 * is the block the title opens (removeSuggestions), on whichever content was
 * chosen (extract-html.ts).
 *
 * A heading is such a title when its whole text is one of these phrases
 * (English: the stores of both benchmarks; a title in another language is
 * left alone).
 */
const SUGGESTION_TITLE = new RegExp(
  '^(?:' +
    [
      'you (?:may|might) also (?:like|love|enjoy|be interested in)',
      'you may also need',
      'customers (?:who (?:bought|viewed) this (?:item|product) )?also (?:bought|viewed|liked|purchased|loved)',
      'people also (?:bought|viewed)',
      'related (?:products|items)',
      'recently viewed(?: items| products)?',
      'similar (?:items|products|styles)',
      'more like this',
      'how about these',
      'frequently bought together',
      '(?:complete|shop) the look',
      'recommended for you',
      'pairs well with',
    ].join('|') +
    ')[?!.:]?$',
  'i',
)

/** Where a title may stand: a heading, or a short block that is nothing but the title (sites style a <div> or a <p> as one). */
const TITLE_TAGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6', 'div', 'p', 'span', 'strong', 'header', 'legend'])
/** A title is short: longer text in a block is a sentence that happens to start so. */
const MAX_TITLE_CHARS = 60
/** Nor is it long: a block of more text is the page around the suggestions. */
const MAX_SECTION_CHARS = 10_000
/** The titles looked at on one page (a store shows a few). */
const MAX_TITLES = 20
/** Never inside a section of suggestions: the page's headline, its main area (a store's cards are often <article>s). */
const CONTENT = new Set(['h1', 'main'])
/** Nor is a section one of these, or above one: the page's article holds the suggestions, they do not hold it. */
const SECTIONING = new Set(['main', 'article', 'body'])

/** Whether `element` is still below `root` (not inside a section removed before it). */
function attached(element: DomElement, root: DomElement): boolean {
  for (let node: DomNode | null = element; node; node = node.parentNode) if (node === root) return true
  return false
}

/** Whether the first text below `element` is inside `title`. */
function startsWith(element: DomElement, title: DomElement): boolean {
  for (let node: DomNode | null = element.firstChild; node; node = nextNode(node, element)) {
    if (node === title) return true
    if (node.nodeType === TEXT_NODE && (node.textContent ?? '').trim()) return false
  }
  return false
}

/**
 * Removes each section of suggestions below `root`: its title and the
 * largest block around it, below `root`, that the title opens (no text
 * before it), under MAX_SECTION_CHARS, holding no headline or main area and
 * not itself the page's main area or article. A block that has text before
 * the title holds the product too (its specifications, then "You may also
 * like"): the title alone goes there. Tried first, and measured on WCXB dev:
 * the largest block that is mostly links beside the title, which kept most
 * stores' cards (a price, "Select your size" and a quantity box are not
 * links): product +0.0002; the block the title opens, +0.011, no page worse.
 * Returns how many sections went.
 */
export function removeSuggestions(root: DomElement): number {
  const measures = measureText(root)
  const titles: DomElement[] = []
  for (const [element, measure] of measures) {
    if (titles.length === MAX_TITLES) break
    if (element === root || !TITLE_TAGS.has(element.localName) || measure.length === 0 || measure.length > MAX_TITLE_CHARS) continue
    const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim()
    if (!SUGGESTION_TITLE.test(text)) continue
    // the innermost element that may be a title and is this one (a <div> around its <h2> is climbed to below; an <a> inside it is not a title)
    let inner = false
    for (let child = element.firstChild; child && !inner; child = child.nextSibling) {
      inner = child.nodeType === ELEMENT_NODE && TITLE_TAGS.has((child as DomElement).localName) && measures.get(child as DomElement)?.length === measure.length
    }
    if (!inner) titles.push(element)
  }
  let removed = 0
  for (const title of titles) {
    if (!attached(title, root)) continue
    let section = title
    for (let parent = title.parentNode as DomElement | null; parent && parent !== root && parent.nodeType === ELEMENT_NODE; parent = parent.parentNode as DomElement | null) {
      const measure = measures.get(parent)
      if (!measure || measure.length > MAX_SECTION_CHARS || SECTIONING.has(parent.localName)) break
      if (!startsWith(parent, title) || hasDescendant(parent, CONTENT)) break
      section = parent
    }
    section.remove()
    removed++
  }
  return removed
}
