import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'

/**
 * The elements below `root` in document order, by one iterative walk:
 * linkedom compiles a selector at every querySelectorAll call, which costs
 * more than the walk on the many small calls the clean-ups make.
 */
export function descendants(root: DomNode, keep?: (element: DomElement) => boolean): DomElement[] {
  const found: DomElement[] = []
  let node: DomNode | null = root.firstChild
  while (node) {
    if (node.nodeType === ELEMENT_NODE && (!keep || keep(node as DomElement))) found.push(node as DomElement)
    if (node.firstChild) {
      node = node.firstChild
      continue
    }
    while (node && node !== root && !node.nextSibling) node = node.parentNode
    node = node && node !== root ? node.nextSibling : null
  }
  return found
}

/** Whether an element below `root` has one of `names`. */
export function hasDescendant(root: DomNode, names: ReadonlySet<string>): boolean {
  let node: DomNode | null = root.firstChild
  while (node) {
    if (node.nodeType === ELEMENT_NODE && names.has((node as DomElement).localName)) return true
    if (node.firstChild) {
      node = node.firstChild
      continue
    }
    while (node && node !== root && !node.nextSibling) node = node.parentNode
    node = node && node !== root ? node.nextSibling : null
  }
  return false
}

/** How many elements below `root` have one of `names`, counting up to `limit`. */
export function countDescendants(root: DomNode, names: ReadonlySet<string>, limit = Infinity): number {
  let count = 0
  let node: DomNode | null = root.firstChild
  while (node && count < limit) {
    if (node.nodeType === ELEMENT_NODE && names.has((node as DomElement).localName)) count++
    if (node.firstChild) {
      node = node.firstChild
      continue
    }
    while (node && node !== root && !node.nextSibling) node = node.parentNode
    node = node && node !== root ? node.nextSibling : null
  }
  return count
}

/** An element's text length (a run of white space counts one character, white space alone none), and how much of it, and how many links, are inside links. */
export interface TextMeasure {
  chars: number
  linkChars: number
  links: number
}

/**
 * The text measures of every element below `root` (and of `root`), in one
 * walk: each text node's length is added to all its open ancestors when the
 * walk leaves them, so that the clean-ups need not read textContent of every
 * candidate block (quadratic on deep trees).
 */
export function measureText(root: DomElement): Map<DomElement, TextMeasure> {
  const measures = new Map<DomElement, TextMeasure>()
  const open: { element: DomElement; measure: TextMeasure }[] = [{ element: root, measure: { chars: 0, linkChars: 0, links: 0 } }]
  let linkDepth = 0
  let node: DomNode | null = root.firstChild
  const close = () => {
    const { element, measure } = open.pop()!
    measures.set(element, measure)
    if (element.localName === 'a') linkDepth--
    const parent = open.at(-1)
    if (parent) {
      parent.measure.chars += measure.chars
      parent.measure.linkChars += measure.linkChars
      parent.measure.links += measure.links
    }
  }
  while (node) {
    if (node.nodeType === ELEMENT_NODE) {
      const element = node as DomElement
      const isLink = element.localName === 'a'
      open.push({ element, measure: { chars: 0, linkChars: 0, links: isLink ? 1 : 0 } })
      if (isLink) linkDepth++
      if (node.firstChild) {
        node = node.firstChild
        continue
      }
      close()
    } else if (node.nodeType === TEXT_NODE) {
      // white space alone counts nothing (an element holding only that is empty)
      const collapsed = (node.textContent ?? '').replace(/\s+/g, ' ')
      const length = collapsed === ' ' ? 0 : collapsed.length
      const measure = open.at(-1)!.measure
      measure.chars += length
      if (linkDepth) measure.linkChars += length
    }
    while (node && node !== root && !node.nextSibling) {
      node = node.parentNode
      if (node && node !== root) close()
    }
    node = node && node !== root ? node.nextSibling : null
  }
  while (open.length) close()
  return measures
}

/**
 * An attribute's value, or null. Through getAttributeNode, standard DOM:
 * linkedom's getAttribute builds a class list for `class` and escapes
 * every other value, which the many reads of the clean-ups pay for.
 */
export function attributeOf(element: DomElement, name: string): string | null {
  const node = (element as unknown as { getAttributeNode?(name: string): { value: string } | null }).getAttributeNode?.(name)
  return node === undefined ? element.getAttribute(name) : (node?.value ?? null)
}
