import { namesBoilerplate } from './boilerplate-words.js'
import { type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { attributeOf, descendants, hasDescendant, measureText } from './dom-walk.js'
import { listItems } from './list-items.js'
import { isDataTable } from './data-tables.js'

/** Which general clean-ups run on the content readability chose. */
export interface PruneRules {
  /** Elements whose class or id names page furniture (sharing, related stories, newsletter boxes, ads, comments). */
  furniture: boolean
  /** Image captions and credits (figcaption, elements whose class names a caption or credit). */
  captions: boolean
  /** Lists and blocks that are mostly links (menus, "related stories"). */
  linkLists: boolean
  /** List items and blocks left with no text. */
  empty: boolean
  /** Short lines without sentence punctuation before the first paragraph (datelines, bylines, labels). */
  leading: boolean
}

/**
 * Measured on the article-extraction benchmark (text F1, readability alone
 * 0.952): captions +0.005, link lists +0.004, leading labels +0.002, empty
 * blocks 0; later, with class names kept by readability, furniture words
 * +0.005 (galleries and bylines among them +0.002). Tried and left out because they lowered F1: removing nav, aside,
 * header and footer before readability (-0.003), short unpunctuated lines at
 * the end (-0.001) or anywhere (-0.006).
 */
export const DEFAULT_RULES: PruneRules = { furniture: true, captions: true, linkLists: true, empty: true, leading: true }

/** Block containers that may be furniture (never inline elements: a linked name in a sentence can have an id like "auto-tag_…"). */
const FURNITURE_TAGS = new Set(['div', 'section', 'aside', 'article', 'ul', 'ol', 'li', 'dl', 'figure', 'footer', 'header', 'nav', 'form', 'table', 'p'])
const LINK_LIST_TAGS = new Set(['ul', 'ol', 'div', 'section', 'table', 'p'])
const EMPTY_TAGS = new Set(['li', 'p', 'div', 'span'])
const NOT_EMPTY = new Set(['img', 'br', 'hr', 'table', 'pre', 'code'])

function isCaption(element: DomElement): boolean {
  if (element.localName === 'figcaption') return true
  const value = attributeOf(element, 'class')
  return !!value && /caption|credit/i.test(value)
}

/** Two paragraphs side by side (what the caption rule leaves alone: a real text block named caption). */
function hasParagraphPair(element: DomElement): boolean {
  for (const paragraph of descendants(element, (child) => child.localName === 'p')) {
    for (let next = paragraph.nextSibling; next; next = next.nextSibling) {
      if (next.nodeType !== ELEMENT_NODE) continue
      if ((next as DomElement).localName === 'p') return true
      break
    }
  }
  return false
}

/** More removals than this in one call: measuring the tree again costs less than correcting every ancestor's measure. */
const MAX_CORRECTIONS = 64

/**
 * After readability, on the content it chose; first, when `unseen` is
 * given, what it names is removed (dom-clean.ts), in the same walk as the
 * measuring. The text is measured once
 * (measureText): what a step removes is taken off the measures of the
 * elements that held it as it goes, which changes none that the step has
 * still to decide on (those come after it in document order, so they are
 * not its ancestors). A step's decisions are those it would make on a tree
 * measured afresh.
 */
/**
 * Link lists are menus and "related" boxes beside an article; when the
 * lists would take more than this share of the content's text, the links
 * are the content (a listing, a directory, a page of teasers) and stay.
 */
const LINK_CONTENT_SHARE = 0.5
/**
 * Blocks named as furniture (comments, teasers, share bars) go when what is
 * left is at least this many characters, a few paragraphs, or when they are
 * a small part of the content (at most FURNITURE_SHARE of it: a share bar
 * under a short article). When they are a large part and removing them
 * would leave less, they are the content (a thread whose posts are named
 * comments, a service page of "promo" blocks, a listing of "related" cards)
 * and stay.
 */
const FURNITURE_LEAVES = 500
const FURNITURE_SHARE = 0.3

/** Whether an ancestor of `element` below `root` is in `set`. */
function insideAny(element: DomElement, set: ReadonlySet<DomElement>, root: DomElement): boolean {
  for (let node = element.parentNode; node && node !== root; node = node.parentNode) if (set.has(node as DomElement)) return true
  return false
}

export function pruneContent(root: DomElement, rules: PruneRules = DEFAULT_RULES, unseen?: (element: DomElement) => boolean) {
  const furniture: DomElement[] = []
  const captions: DomElement[] = []
  const hidden: DomElement[] = []
  const linkLists: DomElement[] = []
  const empty: DomElement[] = []
  // An element inside a part removed before its step is out of the tree: what is decided for it changes nothing.
  let measures = measureText(root, (element) => {
    if (unseen?.(element)) {
      hidden.push(element)
      return false
    }
    const name = element.localName
    if (rules.furniture && FURNITURE_TAGS.has(name)) furniture.push(element)
    if (rules.captions && isCaption(element)) captions.push(element)
    if (rules.linkLists && LINK_LIST_TAGS.has(name)) linkLists.push(element)
    if (rules.empty && EMPTY_TAGS.has(name)) empty.push(element)
  })
  for (const element of hidden) element.remove()
  let corrections = 0
  const remove = (element: DomElement) => {
    const removed = measures.get(element)
    // (an element not measured is outside the tree: in a part removed before the tree was last measured)
    if (++corrections <= MAX_CORRECTIONS && removed) {
      const { chars, linkChars, links } = removed
      // up to root, or to the top of a part removed before (outside the tree)
      for (let node = element.parentNode; node; node = node === root ? null : node.parentNode) {
        const measure = measures.get(node as DomElement)
        if (!measure) break
        measure.chars -= chars
        measure.linkChars -= linkChars
        measure.links -= links
      }
    }
    element.remove()
  }
  const settle = () => {
    if (corrections > MAX_CORRECTIONS) measures = measureText(root)
    corrections = 0
  }
  if (rules.furniture) {
    const total = Math.max(1, measures.get(root)!.length)
    const chosen = new Set<DomElement>()
    let chosenLength = 0
    for (const element of furniture) {
      if (!namesBoilerplate(element)) continue
      const { length } = measures.get(element)!
      if (length > 0.3 * total) continue
      chosen.add(element)
      if (!insideAny(element, chosen, root)) chosenLength += length
    }
    if (total - chosenLength >= FURNITURE_LEAVES || chosenLength <= FURNITURE_SHARE * total) for (const element of chosen) remove(element)
  }
  for (const element of captions) {
    if (hasParagraphPair(element)) continue
    remove(element)
  }
  settle()
  if (rules.linkLists) {
    const total = Math.max(1, measures.get(root)!.chars)
    const chosen = new Set<DomElement>()
    let chosenChars = 0
    for (const element of linkLists) {
      const measure = measures.get(element)
      if (!measure) continue
      const { chars, linkChars, links } = measure
      if (chars === 0 || chars > 0.3 * total) continue
      if (links < (element.localName === 'p' ? 1 : 2)) continue
      if (linkChars / chars <= (element.localName === 'p' ? 0.95 : 0.75)) continue
      // a table of data whose cells are links (names, titles) is content, not a menu
      if (element.localName === 'table' && isDataTable(element)) continue
      chosen.add(element)
      if (!insideAny(element, chosen, root)) chosenChars += chars
    }
    if (chosenChars <= LINK_CONTENT_SHARE * total) for (const element of chosen) remove(element)
    settle()
  }
  if (rules.empty) {
    for (const element of empty) {
      if (measures.get(element)?.chars === 0 && !hasDescendant(element, NOT_EMPTY)) element.remove()
    }
  }
}

const BLOCK_NAMES = new Set(['p', 'div', 'section', 'article', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'blockquote', 'pre', 'table', 'figure', 'header', 'footer', 'dl', 'dd', 'dt'])
/** What ends a sentence, in Latin, CJK, Arabic, Indic and Ethiopic scripts (a closing quote or bracket may follow). */
export const SENTENCE_END = /[.!?:;…。！？．｡؟۔।॥።][\s"'”’»)\]」』》）〕]*$|["”’)\]」』》）〕]\s*$/u

/**
 * Block elements with no block inside, in document order: one walk of the
 * tree (a leaf block is finished before the next one starts, so the order in
 * which they finish is document order).
 */
export function leafBlocks(root: DomElement): DomElement[] {
  const leaves: DomElement[] = []
  // Per open element: whether a block was found below it so far.
  const stack: { node: DomNode; hasBlock: boolean }[] = []
  let node: DomNode | null = root.firstChild
  while (node) {
    if (node.nodeType === ELEMENT_NODE && node.firstChild) {
      stack.push({ node, hasBlock: false })
      node = node.firstChild
      continue
    }
    if (node.nodeType === ELEMENT_NODE) finish(node as DomElement, false)
    // climb until there is a next sibling, finishing the elements left
    while (node && !node.nextSibling && stack.length) {
      const open = stack.pop()!
      finish(open.node as DomElement, open.hasBlock)
      node = open.node
    }
    node = node === root ? null : (node?.nextSibling ?? null)
  }
  return leaves

  function finish(element: DomElement, hasBlock: boolean) {
    const block = BLOCK_NAMES.has(element.localName)
    if (block && !hasBlock) leaves.push(element)
    if ((block || hasBlock) && stack.length) stack.at(-1)!.hasBlock = true
  }
}

const NOT_A_LABEL = new Set(['img', 'pre', 'table'])

function isShortLabel(element: DomElement): boolean {
  const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim()
  return text.length < 80 && !SENTENCE_END.test(text) && !hasDescendant(element, NOT_A_LABEL)
}

/** Datelines, bylines and labels before an article are a few lines; more short lines than this are the content itself (a list, a specification). */
const MAX_LEADING_LABELS = 6

/**
 * Strips short unpunctuated lines (datelines, bylines, labels) before the
 * first paragraph: only when a paragraph follows within MAX_LEADING_LABELS
 * lines. Content with no paragraph (a list, a specification, a table of
 * short lines) has nothing before its first paragraph and is kept whole.
 */
export function trimLeadingLabels(root: DomElement, rules: PruneRules = DEFAULT_RULES) {
  if (!rules.leading) return
  const blocks = leafBlocks(root)
  if (blocks.length < 4) return
  const labels: DomElement[] = []
  for (const block of blocks) {
    if (!isShortLabel(block)) break
    labels.push(block)
    if (labels.length > MAX_LEADING_LABELS) return
  }
  if (labels.length === blocks.length) return
  // The first lines of a list page are its first item's (who posted it, its title).
  if (labels.length && listItems(root)) return
  for (const label of labels) label.remove()
}
