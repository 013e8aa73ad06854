import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { nextNode } from './dom-walk.js'

/** Deeper than this, elements are flattened (browsers, too, stop nesting at a few hundred levels). */
export const MAX_DEPTH = 256

const KEEP_LEAVES = new Set(['img', 'br'])

function hasElementChild(node: DomNode): boolean {
  for (let child = node.firstChild; child; child = child.nextSibling) if (child.nodeType === ELEMENT_NODE) return true
  return false
}

function flattenInto(element: DomElement) {
  const kept: DomNode[] = []
  for (let node = element.firstChild; node; node = nextNode(node, element)) {
    if (node.nodeType === TEXT_NODE) kept.push(node)
    else if (node.nodeType === ELEMENT_NODE && KEEP_LEAVES.has((node as DomElement).localName)) kept.push(node)
  }
  while (element.firstChild) element.firstChild.remove()
  for (const node of kept) element.appendChild(node)
}

/** More element children than this under one parent are grouped (see boundTree). */
export const MAX_CHILDREN = 1000

/** Parents split into several of their own kind, which render as one: a list into lists, rows into row groups. */
const SPLIT = new Set(['ul', 'ol', 'tbody', 'thead', 'tfoot'])
/** Parents whose children must stay where they are (a row's cells, a select's options, a table's parts). */
const KEEP = new Set(['table', 'tr', 'select', 'datalist', 'optgroup', 'colgroup', 'dl', 'html', 'head'])

type Factory = { createElement(name: string): DomElement }

export interface Bounded {
  /** Subtrees deeper than maxDepth flattened to their text. */
  flattened: number
  /** Wide elements regrouped. */
  grouped: number
}

/**
 * Bounds the tree, in one iterative walk, linear in its size:
 *
 * - its depth, so that recursive code downstream (turndown, readability's
 *   helpers, serializers) cannot overflow the stack: an element at maxDepth
 *   that has deeper descendants keeps their text, images and line breaks,
 *   in order, as its direct children;
 * - the number of element children of any element: readability reads
 *   `children` again after each sibling it moves, and linkedom computes
 *   that list by walking the siblings, so a parent of 150,000 paragraphs
 *   took time in the square of that. A wider list or row group is split
 *   into several of its kind (an `<ol>` keeps its numbering), any other
 *   element's children go, in order, into `<div>` groups; table rows and
 *   the like are left as they are. The same text renders (a split list has
 *   a blank line between its parts).
 */
export function boundTree(root: DomNode, maxDepth = MAX_DEPTH, maxChildren = MAX_CHILDREN): Bounded {
  let flattened = 0
  const wide: DomElement[] = []
  // counts[d]: element children seen so far of the open node at depth d (root at 0)
  const counts: number[] = [0]
  const finish = (element: DomNode, depth: number) => {
    if (counts[depth]! > maxChildren && element.nodeType === ELEMENT_NODE && !KEEP.has((element as DomElement).localName)) wide.push(element as DomElement)
  }
  let node: DomNode | null = root.firstChild
  let depth = 1
  while (node) {
    let skip = false
    if (node.nodeType === ELEMENT_NODE) {
      counts[depth - 1]!++
      if (depth >= maxDepth && hasElementChild(node)) {
        flattenInto(node as DomElement)
        flattened++
        skip = true
      }
    }
    if (!skip && node.firstChild) {
      counts[depth] = 0
      node = node.firstChild
      depth++
      continue
    }
    let current: DomNode | null = node
    node = null
    while (current && current !== root) {
      if (current.nextSibling) {
        node = current.nextSibling
        break
      }
      current = current.parentNode
      depth--
      if (current && current !== root) finish(current, depth)
    }
  }
  finish(root, 0)
  const document = ((root as DomNode & { ownerDocument?: Factory | null }).ownerDocument ?? root) as unknown as Factory
  for (const element of wide) {
    if (SPLIT.has(element.localName) && element.parentNode) splitInto(element, maxChildren, document)
    else groupIntoDivs(element, maxChildren, document)
  }
  return { flattened, grouped: wide.length }
}

/** Moves the children after the first maxChildren elements into new elements of the same kind after it. */
function splitInto(element: DomElement, maxChildren: number, document: Factory) {
  const parent = element.parentNode as DomNode
  const start = element.localName === 'ol' ? Number(element.getAttribute('start') ?? '1') || 1 : 0
  let part: DomElement = element
  let inPart = 0
  let index = 0
  for (let child = element.firstChild; child; ) {
    const next: DomNode | null = child.nextSibling
    if (child.nodeType === ELEMENT_NODE) {
      if (inPart === maxChildren) {
        const following = part.nextSibling
        part = document.createElement(element.localName)
        if (start) part.setAttribute('start', String(start + index))
        parent.insertBefore(part, following)
        inPart = 0
      }
      inPart++
      index++
    }
    if (part !== element) part.appendChild(child)
    child = next
  }
}

/** Puts the children, in order, into <div> groups of maxChildren elements (groups of groups when needed). */
function groupIntoDivs(element: DomElement, maxChildren: number, document: Factory) {
  let children: DomNode[] = []
  for (let child = element.firstChild; child; child = child.nextSibling) children.push(child)
  let elements = children.filter((child) => child.nodeType === ELEMENT_NODE).length
  while (elements > maxChildren) {
    const groups: DomNode[] = []
    let group: DomElement | null = null
    let inGroup = 0
    for (const child of children) {
      if (!group || (inGroup === maxChildren && child.nodeType === ELEMENT_NODE)) {
        group = document.createElement('div')
        groups.push(group)
        inGroup = 0
      }
      group.appendChild(child)
      if (child.nodeType === ELEMENT_NODE) inGroup++
    }
    children = groups
    elements = groups.length
  }
  for (const child of children) element.appendChild(child)
}
