import { attributeOf, nextNode, textReaches } from './dom-walk.js'
import { CHROME_TAGS, removeUnseen } from './dom-clean.js'
import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { SharedRuns } from './choose-candidate.js'
import { SENTENCE_END } from './prune-content.js'
import { type TextBlock, textBlocks } from './text-blocks.js'

/**
 * A page made of sections: a service's, an agency's or a product's landing
 * page (a hero, features, benefits, testimonials, questions and answers,
 * prices), each section a heading and a few short paragraphs or cards.
 * Readability scores paragraphs, and keeps the one section whose text
 * scores best (the testimonials, the longest feature); the markup's
 * container is often one of the sections too. On WCXB's development split
 * service pages lost about 20 F1 points to recall so (precision near 1,
 * recall 0.1-0.4). Here, when the content chosen is one part of such a
 * page's main area, the whole area is kept (sectionedContent), its chrome
 * (CHROME_TAGS: navigation, header, asides, footers, forms, controls; and
 * furniture named as such) left out.
 *
 * The area (findSections) is the highest ancestor of the chosen text, in a
 * copy of the page taken before readability changed it, that has at least
 * MIN_SECTIONS sections among its children: a child that opens with a
 * heading (after at most a short label: "FEATURES", "New"), is not mostly
 * links (a menu, a logo wall) and is not named as furniture (comments,
 * related stories, a newsletter box, a modal). The gate (isSectionedPage)
 * reads only the page's structure; see its thresholds for what each one
 * measured.
 */

/** A page of sections has at least this many (a hero and two more; 4 lost 0.79 F1 points on WCXB dev, service 0.33). */
export const MIN_SECTIONS = 3
/** The chosen content is found in the copy by its longest text, at least this long (shorter lines recur: "Learn more"). */
const MIN_KEY_CHARS = 40
/** What a section may have before its heading: one short line (an eyebrow label, a badge; none: a collection page 0.68 -> 0.42, 80: no change). */
const MAX_LABEL_CHARS = 40
/** The areas measured, from the highest down, before the search gives up. */
const MAX_LEVELS = 3
/** Nodes looked at for a section's first text, in all (a page of thousands of wrappers stays linear). */
const MAX_OPENING_STEPS = 20_000

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'])
/** Children that are never a section: the site's chrome, and forms (a sign-up box). */
const NOT_SECTIONS = new Set(['nav', 'aside', 'footer', 'form'])
/**
 * Class and id words of a child that is the site's furniture, not a
 * section: it is left out of the count and out of the area. Narrower than
 * the furniture words of the article clean-ups (boilerplate-words.ts): a
 * service page names its real sections promo, cta, banner, slider,
 * carousel, gallery or teaser.
 */
const FURNITURE = /comment|related|recommend|share|social|newsletter|subscri|signup|modal|popup|overlay|dialog|sidebar|breadcrumb|advert|sponsor/i

const collapse = (value: string) => value.replace(/\s+/g, ' ').trim()

/** The longest text node below `root`, collapsed (only a node longer than the longest so far is collapsed). */
function longestText(root: DomElement): string {
  let longest = ''
  for (let node: DomNode | null = root.firstChild; node; node = nextNode(node, root)) {
    if (node.nodeType !== TEXT_NODE) continue
    const value = node.textContent ?? ''
    if (value.length <= longest.length) continue
    const text = collapse(value)
    if (text.length > longest.length) longest = text
  }
  return longest
}

/** The first text node below `root` whose collapsed text is `key` (collapsing never lengthens a text: shorter ones are passed over). */
function findText(root: DomElement, key: string): DomNode | undefined {
  for (let node: DomNode | null = root.firstChild; node; node = nextNode(node, root)) {
    if (node.nodeType !== TEXT_NODE) continue
    const value = node.textContent ?? ''
    if (value.length >= key.length && collapse(value) === key) return node
  }
  return undefined
}

/** Characters of text (each text node trimmed) and how many of them are inside links. */
interface Size {
  chars: number
  linkChars: number
}

/**
 * The text size of each of `tracked` (elements below `root`, and `root`),
 * in one walk of `root` and nothing else kept: a text node counts toward
 * the innermost tracked element around it, which adds its total to the
 * next one out when the walk leaves it.
 */
function measureTracked(root: DomElement, tracked: ReadonlySet<DomNode>): Map<DomNode, Size> {
  const sizes = new Map<DomNode, Size>()
  const open: { node: DomNode; size: Size }[] = [{ node: root, size: { chars: 0, linkChars: 0 } }]
  const links: DomNode[] = []
  const leave = (node: DomNode) => {
    if (links.at(-1) === node) links.pop()
    if (open.length > 1 && open.at(-1)!.node === node) {
      const { size } = open.pop()!
      sizes.set(node, size)
      const parent = open.at(-1)!.size
      parent.chars += size.chars
      parent.linkChars += size.linkChars
    }
  }
  let node: DomNode | null = root.firstChild
  while (node) {
    if (node.nodeType === ELEMENT_NODE) {
      if ((node as DomElement).localName === 'a') links.push(node)
      if (tracked.has(node)) open.push({ node, size: { chars: 0, linkChars: 0 } })
      if (node.firstChild) {
        node = node.firstChild
        continue
      }
      leave(node)
    } else if (node.nodeType === TEXT_NODE) {
      const length = (node.textContent ?? '').trim().length
      const size = open.at(-1)!.size
      size.chars += length
      if (links.length) size.linkChars += length
    }
    while (node && node !== root && !node.nextSibling) {
      node = node.parentNode
      if (node && node !== root) leave(node)
    }
    node = node && node !== root ? node.nextSibling : null
  }
  sizes.set(root, open[0]!.size)
  return sizes
}

/**
 * An <article> with this much text (characters) is an article, not a card:
 * the page is an article's (as ARTICLE_ITEM_CHARS in list-items.ts). Without
 * this test two article pages and a documentation page gained (+1.13 F1
 * points) and no service page changed; with it an article's page is not
 * copied (the copy costs about 3% of an article's extraction).
 */
const ARTICLE_CHARS = 1500

/**
 * Whether the page may be one of sections: false when its body holds an
 * article (an <article> element with ARTICLE_CHARS of text), whose page
 * keeps today's path: its comments, related stories and other blocks are
 * not sections of it; false too when no element has MIN_SECTIONS children
 * holding a heading, which findSections needs of an area (on ScrapingHub's
 * 181 articles 50 pages are copied instead of 72, on WCXB 718 instead of
 * 901; no output changes). Read before readability, so that such a page is
 * not copied (sectionedContent).
 */
export function maySection(body: DomElement): boolean {
  // one walk for both (a tag-name selector is one walk on built pages: built-document.ts)
  const found = Array.from(body.querySelectorAll(`article, ${[...HEADINGS].join(', ')}`))
  for (const element of found) if (element.localName === 'article' && textReaches(element, ARTICLE_CHARS)) return false
  return holdsSectionedElement(body, found)
}

/**
 * Whether an element below `body` (or the body) has MIN_SECTIONS children
 * that hold a heading below them: what findSections needs of an area before
 * it reads any text, so that a page without one is not copied. Each heading
 * (of `elements`) climbs until it meets a child already counted; linear.
 */
function holdsSectionedElement(body: DomElement, elements: DomElement[]): boolean {
  const counted = new Set<DomNode>()
  const children = new Map<DomNode, number>()
  for (const heading of elements) {
    if (!HEADINGS.has(heading.localName)) continue
    // the heading's parent is the first that holds it below itself: a section is a child opening with a heading inside it
    for (let child = heading.parentNode; child && child !== body && !counted.has(child); child = child.parentNode) {
      counted.add(child)
      const parent = child.parentNode
      if (!parent || NOT_SECTIONS.has((child as DomElement).localName)) continue
      const count = (children.get(parent) ?? 0) + 1
      if (count >= MIN_SECTIONS) return true
      children.set(parent, count)
    }
  }
  return false
}

/** The sections of a page, and what the gate reads of them. */
export interface Sections {
  /** The main area: an element of the copy, holding the sections, as it is kept (without its furniture, chrome and controls). */
  area: DomElement
  /** Its children that are sections. */
  count: number
  /** Its children named as furniture (removed from it). */
  furniture: DomElement[]
  /** Of the area's text outside links: the largest section's share. */
  largestShare: number
  /** Of the area's text: the share inside links. */
  linkShare: number
  /** Whether the chosen text is inside an <article> (or itemprop=articleBody) below the area: one article among other blocks. */
  inArticle: boolean
}

/**
 * The main area of sections around the chosen content, in `intact` (a copy
 * of the page's body taken before readability changed it), or undefined.
 * One walk measures the copy; each ancestor of the chosen text is read once,
 * and each of its children to its first text only (MAX_OPENING_STEPS in all).
 */
export function findSections(intact: DomElement, chosen: DomElement): Sections | undefined {
  const key = longestText(chosen)
  if (key.length < MIN_KEY_CHARS) return undefined
  const anchor = findText(intact, key)
  if (!anchor) return undefined
  let steps = MAX_OPENING_STEPS
  /** Whether the first text of `element` (or the first after a short label) is in a heading. */
  const opensWithHeading = (element: DomElement): boolean => {
    let texts = 0
    for (let node: DomNode | null = element.firstChild; node && steps-- > 0; node = nextNode(node, element)) {
      if (node.nodeType !== TEXT_NODE) continue
      const text = collapse(node.textContent ?? '')
      if (!text) continue
      for (let parent = node.parentNode; parent && parent !== element; parent = parent.parentNode) {
        if (HEADINGS.has((parent as DomElement).localName)) return true
      }
      if (++texts > 1 || text.length > MAX_LABEL_CHARS) return false
    }
    return false
  }
  const mayBeSection = (child: DomNode) => child.nodeType === ELEMENT_NODE && !NOT_SECTIONS.has((child as DomElement).localName) && opensWithHeading(child as DomElement)
  // the anchor's ancestors with MIN_SECTIONS children that open with a heading, innermost first (nothing measured yet)
  const levels: DomElement[] = []
  for (let node = anchor.parentNode; node; node = node === intact ? null : node.parentNode) {
    let count = 0
    for (let child = node.firstChild; child && count < MIN_SECTIONS; child = child.nextSibling) if (mayBeSection(child)) count++
    if (count === MIN_SECTIONS) levels.push(node as DomElement)
  }
  // the highest of them whose sections, measured, are still MIN_SECTIONS: each tried is measured in one walk of it
  let found: Sections | undefined
  for (let index = levels.length - 1; index >= 0 && index >= levels.length - MAX_LEVELS && !found; index--) {
    const element = levels[index]!
    const children = new Set<DomNode>()
    for (let child = element.firstChild; child; child = child.nextSibling) if (child.nodeType === ELEMENT_NODE) children.add(child)
    const measures = measureTracked(element, children)
    let count = 0
    let largest = 0
    const furniture: DomElement[] = []
    for (const child of children) {
      const section = child as DomElement
      const own = measures.get(section)!
      if (own.linkChars * 2 > own.chars || !mayBeSection(section)) continue
      if (FURNITURE.test(`${attributeOf(section, 'class') ?? ''} ${attributeOf(section, 'id') ?? ''}`)) {
        furniture.push(section)
        continue
      }
      count++
      largest = Math.max(largest, own.chars - own.linkChars)
    }
    if (count < MIN_SECTIONS) continue
    const measure = measures.get(element)!
    const text = Math.max(1, measure.chars - measure.linkChars)
    found = { area: element, count, furniture, largestShare: largest / text, linkShare: measure.linkChars / Math.max(1, measure.chars), inArticle: false }
  }
  if (!found) return undefined
  for (let node = anchor.parentNode; node && node !== found.area; node = node.parentNode) {
    const element = node as DomElement
    if (element.localName === 'article' || attributeOf(element, 'itemprop')?.toLowerCase() === 'articlebody') found.inArticle = true
  }
  // the area as it is kept: without its furniture, what is never shown, and the chrome and controls inside it
  for (const element of found.furniture) element.remove()
  removeUnseen(found.area, CHROME_TAGS)
  return found
}

/** The area's text is mostly outside links: under this share in links (a site map, a footer-like menu of sections is not content to read; 0.4 changed nothing, 0.6 a service page 0.73 -> 0.59). */
const MAX_LINK_SHARE = 0.5
/** No section holds this share of the area's text or more: one that does is the page's article, the rest around it (0.7: one service page fewer, 0.54 -> 0.75; 0.6: -1.33 F1 points). */
const MAX_LARGEST_SHARE = 0.8
/** The chosen content is in the area: this share of its text, at least (0.8 changed nothing). */
const CONTAINED = 0.9
/**
 * The chosen content is under this share of the area's distinct text (its
 * own, and what the area adds, each different run once: a page that repeats
 * its article in a hidden copy adds nothing). 0.5 lost seven service pages
 * (0.92-0.98 -> 0.68-0.75, -1.70 F1 points); 0.7 took two article pages
 * (1.00 -> 0.74, 0.98 -> 0.76) for a service and a product page.
 */
const PART = 0.6
/** A paragraph this long (characters) is an article's: the chosen content has none (800 changed nothing; 1,500 took one more article page, 0.42 -> 0.65). */
const ARTICLE_PARAGRAPH = 1000
/**
 * What the area adds is at least this share prose (paragraphs to read, not
 * the labels and toggles of a tool panel, nor teasers' titles). Without it
 * (and 0.2) an article page took its tool panels (0.90 -> 0.56: lost to
 * bare readability by more than 0.3), and three service and collection
 * pages their carousels and teasers (0.89-1.00 -> 0.53-0.76); at 0.25 seven
 * pages that gained 0.08-0.40 stay as they were (-1.54 F1 points).
 */
const ADDED_PROSE = 0.25
/** A run of text is prose when it is this long, ends a sentence and is mostly outside links. */
const PROSE_CHARS = 80

function length(blocks: TextBlock[]): number {
  let total = 0
  for (const block of blocks) total += block.text.length
  return total
}

/**
 * The gate: whether `chosen` is one part of a page of `sections`, by the
 * page's structure alone. The chosen text lies in the area (CONTAINED),
 * not inside an article below it; the area is mostly outside links
 * (MAX_LINK_SHARE) and no one section dominates it (MAX_LARGEST_SHARE); the
 * chosen text has no article-length paragraph (ARTICLE_PARAGRAPH) and is a
 * small part of what the area holds (PART), which adds prose (ADDED_PROSE).
 *
 * Measured on WCXB dev (1,358 pages) and ScrapingHub (181 articles), each
 * threshold tried around its value with the others fixed (figures beside
 * each). WCXB 0.8474 -> 0.8551: service 0.766 -> 0.812 (25 pages better by
 * 0.13-0.67: 0697 0.30 -> 0.97, 4290 0.20 -> 0.82, 0377 0.37 -> 0.98, 0066
 * 0.47 -> 0.99), product +0.014, listing +0.006, article +0.001; four pages
 * worse (see the commit). ScrapingHub: no page's text changed.
 */
export function isSectionedPage(sections: Sections, chosen: DomElement): boolean {
  if (sections.inArticle || sections.linkShare >= MAX_LINK_SHARE || sections.largestShare >= MAX_LARGEST_SHARE) return false
  const chosenBlocks = textBlocks(chosen)
  for (const block of chosenBlocks) if (block.text.length >= ARTICLE_PARAGRAPH) return false
  const areaBlocks = textBlocks(sections.area)
  if (new SharedRuns(areaBlocks).share(chosenBlocks) < CONTAINED) return false
  const inChosen = new SharedRuns(chosenBlocks)
  const added = new Set<string>()
  let addedLength = 0
  let addedProse = 0
  for (const block of areaBlocks) {
    if (added.has(block.text) || inChosen.has(block)) continue
    added.add(block.text)
    addedLength += block.text.length
    if (block.text.length >= PROSE_CHARS && block.linkChars * 2 < block.text.length && SENTENCE_END.test(block.text)) addedProse += block.text.length
  }
  const chosenLength = length(chosenBlocks)
  return chosenLength < PART * (chosenLength + addedLength) && addedProse >= ADDED_PROSE * addedLength
}

/**
 * The page's main area of sections, to keep instead of `chosen`, or
 * undefined when the gate does not hold. `intact` is a copy of the body
 * taken before readability changed the page; the area is taken out of it.
 */
export function sectionedContent(intact: DomElement, chosen: DomElement): DomElement | undefined {
  const sections = findSections(intact, chosen)
  if (!sections || !isSectionedPage(sections, chosen)) return undefined
  sections.area.remove()
  return sections.area
}
