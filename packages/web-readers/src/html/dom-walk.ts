import { type DomDocument, type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'

/**
 * Work done by the walks and scans of extraction, counted so that tests can
 * assert that it grows with the page's size (pathological-pages.spec.ts)
 * without timing anything: `walkSteps`, nodes stepped over by nextNode (and
 * parents climbed); `scannedChars`, characters scanned by substring checks
 * (choose-candidate.ts). Plain numbers in a module: one increment per step.
 */
export const workDone = { walkSteps: 0, scannedChars: 0 }

/** The elements of one tag name below `root`: one walk on built pages (built-document.ts), where a selector with an attribute goes through css-select. */
export function byTag(root: DomDocument | DomElement, name: string): ArrayLike<DomElement> {
  return (root as unknown as { getElementsByTagName(name: string): ArrayLike<DomElement> }).getElementsByTagName(name)
}

/** The next node after `node` in document order, below `root` (its children first unless `skipChildren`), without recursion. */
export function nextNode(node: DomNode, root: DomNode, skipChildren = false): DomNode | null {
  workDone.walkSteps++
  if (!skipChildren && node.firstChild) return node.firstChild
  for (let current: DomNode | null = node; current && current !== root; current = current.parentNode) {
    workDone.walkSteps++
    if (current.nextSibling) return current.nextSibling
  }
  return null
}

/**
 * The elements below `root` in document order, by one iterative walk:
 * linkedom compiles a selector at every querySelectorAll call, which costs
 * more than the walk on the many small calls the clean-ups make.
 */
export function descendants(root: DomNode, keep?: (element: DomElement) => boolean): DomElement[] {
  const found: DomElement[] = []
  for (let node = root.firstChild; node; node = nextNode(node, root)) {
    if (node.nodeType === ELEMENT_NODE && (!keep || keep(node as DomElement))) found.push(node as DomElement)
  }
  return found
}

/** Whether an element below `root` has one of `names`. */
export function hasDescendant(root: DomNode, names: ReadonlySet<string>): boolean {
  for (let node = root.firstChild; node; node = nextNode(node, root)) {
    if (node.nodeType === ELEMENT_NODE && names.has((node as DomElement).localName)) return true
  }
  return false
}

/** How many elements below `root` have one of `names`, counting up to `limit`. */
export function countDescendants(root: DomNode, names: ReadonlySet<string>, limit = Infinity): number {
  let count = 0
  for (let node = root.firstChild; node && count < limit; node = nextNode(node, root)) {
    if (node.nodeType === ELEMENT_NODE && names.has((node as DomElement).localName)) count++
  }
  return count
}

/**
 * An element's text measures: `chars`, its text length with each text
 * node's runs of white space counted one character (white space alone
 * none); how much of that, and how many links, are inside links; and
 * `length`, exactly `textContent.replace(/\s+/g, ' ').trim().length`.
 */
export interface TextMeasure {
  chars: number
  linkChars: number
  links: number
  length: number
}

/** A measure being summed: the collapsed text's length and whether it starts and ends with white space. */
interface OpenMeasure extends TextMeasure {
  collapsed: number
  startsBlank: boolean
  endsBlank: boolean
}

const CDATA_SECTION_NODE = 4

/** Appends a collapsed text (its length, and whether it starts and ends blank) to `measure`, merging the white space where they meet. */
function append(measure: OpenMeasure, collapsed: number, startsBlank: boolean, endsBlank: boolean) {
  if (collapsed === 0) return
  if (measure.collapsed === 0) {
    measure.collapsed = collapsed
    measure.startsBlank = startsBlank
  } else measure.collapsed += collapsed - (measure.endsBlank && startsBlank ? 1 : 0)
  measure.endsBlank = endsBlank
}

/** The collapsed text's length once the blank at either end is trimmed. */
function trimmedLength(measure: OpenMeasure): number {
  return Math.max(0, measure.collapsed - (measure.startsBlank ? 1 : 0) - (measure.endsBlank ? 1 : 0))
}

function opened(links: number): OpenMeasure {
  return { chars: 0, linkChars: 0, links, length: 0, collapsed: 0, startsBlank: false, endsBlank: false }
}

/**
 * The text measures of every element below `root` (and of `root`), in one
 * walk: each text node's length is added to all its open ancestors when the
 * walk leaves them, so that the clean-ups need not read textContent of every
 * candidate block (quadratic on deep trees). `enter` sees every element
 * below `root` in document order; an element it returns false for is left
 * out, with all it holds, as if it were not in the tree.
 */
export function measureText(root: DomElement, enter?: (element: DomElement) => boolean | void): Map<DomElement, TextMeasure> {
  const measures = new Map<DomElement, TextMeasure>()
  // the open elements and their measures, root first
  const elements: DomElement[] = [root]
  const open: OpenMeasure[] = [opened(0)]
  let linkDepth = 0
  let node: DomNode | null = root.firstChild
  const close = () => {
    const element = elements.pop()!
    const measure = open.pop()!
    measure.length = trimmedLength(measure)
    measures.set(element, measure)
    if (element.localName === 'a') linkDepth--
    if (open.length) {
      const parent = open[open.length - 1]!
      parent.chars += measure.chars
      parent.linkChars += measure.linkChars
      parent.links += measure.links
      append(parent, measure.collapsed, measure.startsBlank, measure.endsBlank)
    }
  }
  while (node) {
    const type = node.nodeType
    if (type === ELEMENT_NODE) {
      const element = node as DomElement
      if (enter?.(element) === false) {
        while (node && node !== root && !node.nextSibling) {
          node = node.parentNode
          if (node && node !== root) close()
        }
        node = node && node !== root ? node.nextSibling : null
        continue
      }
      const isLink = element.localName === 'a'
      elements.push(element)
      open.push(opened(isLink ? 1 : 0))
      if (isLink) linkDepth++
      if (node.firstChild) {
        node = node.firstChild
        continue
      }
      close()
    } else if (type === TEXT_NODE || type === CDATA_SECTION_NODE) {
      const value = node.textContent ?? ''
      if (value) {
        const collapsed = WHITE_RUNS.test(value) ? value.replace(WHITE_SPACE, ' ') : value
        const measure = open[open.length - 1]!
        const startsBlank = collapsed.charCodeAt(0) === 32
        append(measure, collapsed.length, startsBlank, collapsed.charCodeAt(collapsed.length - 1) === 32)
        if (type === TEXT_NODE) {
          // white space alone counts nothing (an element holding only that is empty)
          const length = collapsed.length === 1 && startsBlank ? 0 : collapsed.length
          measure.chars += length
          if (linkDepth) measure.linkChars += length
        }
      }
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
 * Whether an element's text is at least `threshold` characters long, as
 * TextMeasure's `length` counts: its text is read in document order only
 * until that is certain (collapsing never shortens what follows), so that a
 * long article costs what its first lines cost.
 */
export function textReaches(element: DomElement, threshold: number): boolean {
  const measure = opened(0)
  for (let node: DomNode | null = element.firstChild; node; ) {
    const type = node.nodeType
    if (type === TEXT_NODE || type === CDATA_SECTION_NODE) {
      const value = node.textContent ?? ''
      if (value) {
        const text = WHITE_RUNS.test(value) ? value.replace(WHITE_SPACE, ' ') : value
        append(measure, text.length, text.charCodeAt(0) === 32, text.charCodeAt(text.length - 1) === 32)
        // at worst a leading and a trailing blank are trimmed
        if (measure.collapsed - (measure.startsBlank ? 1 : 0) - 1 >= threshold) return true
      }
    }
    node = nextNode(node, element, type !== ELEMENT_NODE)
  }
  return trimmedLength(measure) >= threshold
}

/** White space other than a lone space (what collapsing changes). */
const WHITE_RUNS = /\s\s|[^\S ]/
const WHITE_SPACE = /\s+/g

/**
 * An attribute's value, or null. Through getAttributeNode, standard DOM:
 * linkedom's getAttribute builds a class list for `class` and escapes
 * every other value, which the many reads of the clean-ups pay for.
 */
export function attributeOf(element: DomElement, name: string): string | null {
  const node = (element as unknown as { getAttributeNode?(name: string): { value: string } | null }).getAttributeNode?.(name)
  return node === undefined ? element.getAttribute(name) : (node?.value ?? null)
}
