import type { DomElement } from './dom.js'
import { type TextMeasure, attributeOf, countDescendants, hasDescendant, measureText, textReaches } from './dom-walk.js'

/** Items of a list have at least this much text each, and there are at least MIN_ITEMS of them. */
export const MIN_ITEM_CHARS = 40
export const MIN_ITEMS = 3
/** A list page's items hold at least this share of its text. */
export const LIST_SHARE = 0.5
export const ITEM_TAGS = new Set(['div', 'article', 'section', 'li', 'tr', 'dd'])
export const INNER_BLOCKS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'pre', 'blockquote', 'table'])

/** Page chrome: a list or a paragraph inside one of these (a menu, a footer's link columns) is not content. */
export const SHUT = new Set(['nav', 'aside', 'footer', 'header', 'form'])

/** An element's class words without digits, lower case (post-1806 and the like name one item, not a kind of item). */
export function kindWords(element: DomElement): string[] {
  return (attributeOf(element, 'class') ?? '').toLowerCase().split(/\s+/).filter((word) => word && !/\d/.test(word))
}

/** An item's kind: its tag and its kindWords. */
export function kindOf(element: DomElement): string {
  return `${element.localName}.${kindWords(element).sort().join('.')}`
}

/**
 * Whether the content is a list of items of one kind (posts, answers,
 * results, reviews): at least MIN_ITEMS sibling containers of the same tag
 * and class words, each with text and more than one block inside, holding
 * LIST_SHARE of the text between them. Only the path of elements that hold
 * LIST_SHARE of the text is searched. `measures` are measureText(root)'s,
 * when the caller has them.
 */
export function listItems(root: DomElement, measures: Map<DomElement, TextMeasure> = measureText(root)): Set<DomElement> | undefined {
  const textLength = (element: DomElement) => measures.get(element)!.length
  const total = Math.max(1, textLength(root))
  let level: DomElement[] = [root]
  while (level.length) {
    const next: DomElement[] = []
    for (const element of level) {
      const kinds = new Map<string, number>()
      const items = new Map<string, DomElement[]>()
      for (let child = element.firstChild; child; child = child.nextSibling) {
        if (child.nodeType !== 1) continue
        const item = child as DomElement
        const length = textLength(item)
        if (length >= LIST_SHARE * total) next.push(item)
        if (!ITEM_TAGS.has(item.localName) || length < MIN_ITEM_CHARS || countDescendants(item, INNER_BLOCKS, 2) < 2) continue
        const kind = kindOf(item)
        kinds.set(kind, (kinds.get(kind) ?? 0) + length)
        items.set(kind, [...(items.get(kind) ?? []), item])
      }
      for (const [kind, length] of kinds) if (items.get(kind)!.length >= MIN_ITEMS && length >= LIST_SHARE * total) return new Set(items.get(kind))
    }
    level = next
  }
  return undefined
}


/** An item holding its own heading and this much text is a whole article: a list of them is one article and those a page appends after it. */
const ARTICLE_ITEM_CHARS = 1500
const HEADINGS = new Set(['h1', 'h2', 'h3'])

/** Whether the `item`s of `parent` (its children of item's tag) are mostly whole articles (at least two). */
export function isArticleRun(parent: DomElement, item: DomElement): boolean {
  let articles = 0
  let items = 0
  for (let sibling = parent.firstChild; sibling; sibling = sibling.nextSibling) {
    if (sibling.nodeType !== 1 || (sibling as DomElement).localName !== item.localName) continue
    items++
    const other = sibling as DomElement
    if (textReaches(other, ARTICLE_ITEM_CHARS) && hasDescendant(other, HEADINGS)) articles++
  }
  return articles >= 2 && articles * 2 >= items
}
