import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { type TextMeasure, hasDescendant, measureText, nextNode } from './dom-walk.js'

/**
 * Sections of a page known by their title alone: a store's suggestions of
 * other products ("You may also like": recommendations.ts), a product's
 * reviews and its customers' questions (product-reviews.ts). What goes is
 * the title and the largest block it opens (findTitledSections).
 */

/** Where a title may stand: a heading, or a short block that is nothing but the title (sites style a <div> or a <p> as one). */
const TITLE_TAGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6', 'div', 'p', 'span', 'strong', 'header', 'legend'])
/** A title is short: longer text in a block is a sentence that happens to start so. */
const MAX_TITLE_CHARS = 60
/** The titles looked at on one page (a store shows a few). */
const MAX_TITLES = 20
/** Never inside a section so titled: the page's headline, its main area (a store's cards are often <article>s). */
const CONTENT = new Set(['h1', 'main'])
/** Nor is a section one of these, or above one: the page's article holds the section, it does not hold the article. */
const SECTIONING = new Set(['main', 'article', 'body'])

/** Whether the first text below `element` is inside `title`. */
export function startsWith(element: DomElement, title: DomNode): boolean {
  for (let node: DomNode | null = element.firstChild; node; node = nextNode(node, element)) {
    if (node === title) return true
    if (node.nodeType === TEXT_NODE && (node.textContent ?? '').trim()) return false
  }
  return false
}

/** Whether `element` or an element above it, below `root`, is in `set`. */
export function within(element: DomNode, set: ReadonlySet<DomNode>, root: DomNode): boolean {
  for (let node: DomNode | null = element; node && node !== root; node = node.parentNode) if (set.has(node)) return true
  return false
}

export interface SectionOptions {
  /** The largest section, in characters: a block of more text is the page around the section. */
  maxChars: number
  /** A title that is the first text of `root` opens no section (a tab bar's label before the panels, or the content itself so titled). */
  afterContent?: boolean
  /** The measures of `root`, when the caller has them. */
  measures?: Map<DomElement, TextMeasure>
}

/**
 * The sections below `root` whose title `isTitle` accepts (the title's
 * text, white space collapsed), in document order, none inside another:
 * for each title, the largest block around it, below `root`, that the
 * title opens (no text before it), of at most `maxChars` characters,
 * holding no headline or main area and not itself the page's main area or
 * article. A block that has text before the title holds more than the
 * section (a product's specifications, then its suggestions): the title
 * alone is the section there. One walk for the measures; the climb from
 * each title is bounded by the tree's depth (flatten-deep.ts).
 */
export function findTitledSections(root: DomElement, isTitle: (text: string) => boolean, options: SectionOptions): DomElement[] {
  const measures = options.measures ?? measureText(root)
  const titles: DomElement[] = []
  for (const [element, measure] of measures) {
    if (titles.length === MAX_TITLES) break
    if (element === root || !TITLE_TAGS.has(element.localName) || measure.length === 0 || measure.length > MAX_TITLE_CHARS) continue
    const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim()
    if (!isTitle(text)) continue
    // the innermost element that may be a title and is this one (a <div> around its <h2> is climbed to below; an <a> inside it is not a title)
    let inner = false
    for (let child = element.firstChild; child && !inner; child = child.nextSibling) {
      inner = child.nodeType === ELEMENT_NODE && TITLE_TAGS.has((child as DomElement).localName) && measures.get(child as DomElement)?.length === measure.length
    }
    if (!inner) titles.push(element)
  }
  const sections = new Set<DomElement>()
  const found: DomElement[] = []
  for (const title of titles) {
    if (within(title, sections, root)) continue
    if (options.afterContent && startsWith(root, title)) continue
    let section = title
    for (let parent = title.parentNode as DomElement | null; parent && parent !== root && parent.nodeType === ELEMENT_NODE; parent = parent.parentNode as DomElement | null) {
      const measure = measures.get(parent)
      if (!measure || measure.length > options.maxChars || SECTIONING.has(parent.localName)) break
      if (!startsWith(parent, title) || hasDescendant(parent, CONTENT)) break
      section = parent
    }
    sections.add(section)
    found.push(section)
  }
  // a title's section starts with it, so it never holds a section found before it: none is inside another
  return found
}

/** Removes the sections findTitledSections finds; returns how many went. */
export function removeTitledSections(root: DomElement, isTitle: (text: string) => boolean, options: SectionOptions): number {
  const sections = findTitledSections(root, isTitle, options)
  for (const section of sections) section.remove()
  return sections.length
}
