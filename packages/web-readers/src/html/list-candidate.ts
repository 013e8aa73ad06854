import { namesBoilerplate } from './boilerplate-words.js'
import { containerCandidate, isContainerTag } from './container-candidate.js'
import type { DomElement, DomNode } from './dom.js'
import { type TextMeasure, attributeOf, countDescendants, descendants, measureText, textReaches } from './dom-walk.js'
import { INNER_BLOCKS, ITEM_TAGS, LIST_SHARE, MIN_ITEMS, MIN_ITEM_CHARS, SHUT, isArticleRun, kindOf } from './list-items.js'

function isItemTag(element: DomElement): boolean {
  return ITEM_TAGS.has(element.localName)
}


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
 * it is wanted). `items` are the body's elements that isItemTag accepts, in
 * document order, when the caller has them; only the items of containers
 * with enough of them are measured.
 */
export function listCandidate(body: DomElement, items = descendants(body, isItemTag)): DomElement | undefined {
  const itemsOf = new Map<DomNode, DomElement[]>()
  for (const item of items) {
    const parent = item.parentNode!
    const items = itemsOf.get(parent)
    if (items) items.push(item)
    else itemsOf.set(parent, [item])
  }
  const measures = new Map<DomElement, TextMeasure>()
  const lengthOf = (element: DomElement) => {
    let measure = measures.get(element)
    if (!measure) {
      for (const [inner, innerMeasure] of measureText(element)) measures.set(inner, innerMeasure)
      measure = measures.get(element)!
    }
    return measure.length
  }
  const runs: { container: DomElement; items: DomElement[]; chars: number }[] = []
  const kindsOf = new Map<string, Map<string, string>>()
  for (const [parent, children] of itemsOf) {
    if (children.length < MIN_ITEMS) continue
    const kinds = new Map<string, DomElement[]>()
    for (const item of children) {
      // most items of a run have the very same class
      const className = attributeOf(item, 'class') ?? ''
      let kind = kindsOf.get(className)?.get(item.localName)
      if (kind === undefined) {
        kind = kindOf(item)
        let byTag = kindsOf.get(className)
        if (!byTag) kindsOf.set(className, (byTag = new Map()))
        byTag.set(item.localName, kind)
      }
      const run = kinds.get(kind)
      if (run) run.push(item)
      else kinds.set(kind, [item])
    }
    for (const run of kinds.values()) {
      if (run.length < MIN_ITEMS) continue
      const items = run.filter((item) => countDescendants(item, INNER_BLOCKS, 2) >= 2 && textReaches(item, MIN_ITEM_CHARS))
      if (items.length < MIN_ITEMS) continue
      let chars = 0
      for (const item of items) chars += lengthOf(item)
      runs.push({ container: parent as DomElement, items, chars })
    }
  }
  // the longest run that passes: the tests that read more of the page only until one does
  runs.sort((one, other) => other.chars - one.chars)
  const best = runs.find(
    ({ container, items, chars }) =>
      // the container's text read only as far as decides whether the items hold LIST_SHARE of it
      !textReaches(container, Math.floor(chars / LIST_SHARE) + 1) && !inFurniture(items[0]!, body) && !isArticleRun(container, items[0]!),
  )
  if (!best) return undefined
  return (best.container as unknown as { cloneNode(deep: boolean): DomElement }).cloneNode(true)
}

/** The second candidate and the page's list (containerCandidate, listCandidate), from one walk of the page's elements. */
export function pageCandidates(body: DomElement): { named: DomElement | undefined; list: DomElement | undefined } {
  const containers: DomElement[] = []
  const items: DomElement[] = []
  descendants(body, (element) => {
    if (isContainerTag(element)) containers.push(element)
    if (isItemTag(element)) items.push(element)
    return false
  })
  return { named: containerCandidate(body, containers), list: listCandidate(body, items) }
}
