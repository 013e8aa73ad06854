import { namesBoilerplate } from './boilerplate-words.js'
import type { DomElement, DomNode } from './dom.js'
import { countDescendants, measureText } from './dom-walk.js'
import { INNER_BLOCKS, ITEM_TAGS, LIST_SHARE, MIN_ITEMS, MIN_ITEM_CHARS, isArticleRun, kindOf } from './list-items.js'

/** Page chrome: a list inside one of these (a menu, a footer's link columns) is not content. */
const SHUT = new Set(['nav', 'aside', 'footer', 'header', 'form'])

/** Whether `element` or one of its ancestors below `body` is chrome or names furniture (comments, related stories). */
function inFurniture(element: DomElement, body: DomElement): boolean {
  for (let node: DomNode | null = element; node && node !== body; node = node.parentNode) {
    if (SHUT.has((node as DomElement).localName) || namesBoilerplate(node as DomElement)) return true
  }
  return false
}

/**
 * The page's list of items, for when the chosen candidate holds a fragment of
 * it: the container of the longest run of sibling items of one kind (the
 * posts of a thread, the answers to a question, the results of a search, the
 * reviews of a product), at least MIN_ITEMS of them, each with
 * MIN_ITEM_CHARS of text and more than one block inside, together holding
 * LIST_SHARE of their container's text; outside chrome and furniture
 * (comments and related stories are lists too), and not a run of whole
 * articles (what infinite scrolling appends). A copy, taken before
 * readability changes the page, not yet cleaned (widenToList cleans it when
 * it is wanted). The page's text is measured in one walk.
 */
export function listCandidate(body: DomElement): DomElement | undefined {
  const measures = measureText(body)
  // per container, per kind of item: the items and their text
  const runs = new Map<DomNode, Map<string, { items: DomElement[]; chars: number }>>()
  for (const [element, { length }] of measures) {
    if (element === body || length < MIN_ITEM_CHARS || !ITEM_TAGS.has(element.localName)) continue
    const parent = element.parentNode
    if (!parent) continue
    let kinds = runs.get(parent)
    if (!kinds) runs.set(parent, (kinds = new Map()))
    const kind = kindOf(element)
    const run = kinds.get(kind)
    if (run) {
      run.items.push(element)
      run.chars += length
    } else kinds.set(kind, { items: [element], chars: length })
  }
  let best: { container: DomElement; chars: number } | undefined
  for (const [parent, kinds] of runs) {
    const container = parent as DomElement
    const total = measures.get(container)?.length ?? 0
    for (const run of kinds.values()) {
      if (run.items.length < MIN_ITEMS || run.chars < LIST_SHARE * total || (best && run.chars <= best.chars)) continue
      const items = run.items.filter((item) => countDescendants(item, INNER_BLOCKS, 2) >= 2)
      let chars = 0
      for (const item of items) chars += measures.get(item)!.length
      if (items.length < MIN_ITEMS || chars < LIST_SHARE * total || (best && chars <= best.chars)) continue
      if (inFurniture(items[0]!, body) || isArticleRun(container, items[0]!)) continue
      best = { container, chars }
    }
  }
  if (!best) return undefined
  return (best.container as unknown as { cloneNode(deep: boolean): DomElement }).cloneNode(true)
}
