import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'

/** Deeper than this, elements are flattened (browsers, too, stop nesting at a few hundred levels). */
export const MAX_DEPTH = 256

const KEEP_LEAVES = new Set(['img', 'br'])

/** The next node in document order below `root`, without recursion. */
function nextNode(node: DomNode, root: DomNode, skipChildren = false): DomNode | null {
  if (!skipChildren && node.firstChild) return node.firstChild
  let current: DomNode | null = node
  while (current && current !== root) {
    if (current.nextSibling) return current.nextSibling
    current = current.parentNode
  }
  return null
}

/**
 * Bounds the depth of the tree so that recursive code downstream (turndown,
 * readability's helpers, serializers) cannot overflow the stack: an element
 * at MAX_DEPTH that has deeper descendants keeps their text, images and line
 * breaks, in order, as its direct children. Iterative, linear in the size of
 * the tree. Returns how many subtrees were flattened.
 */
export function flattenDeepNesting(root: DomNode, maxDepth = MAX_DEPTH): number {
  let flattened = 0
  let node: DomNode | null = root.firstChild
  let depth = 1
  while (node) {
    let skip = false
    if (node.nodeType === ELEMENT_NODE && depth >= maxDepth && hasElementChild(node)) {
      flattenInto(node as DomElement)
      flattened++
      skip = true
    }
    // move on, tracking depth without recursion
    if (!skip && node.firstChild) {
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
    }
  }
  return flattened
}

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
