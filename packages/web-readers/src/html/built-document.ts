import { DOMParser } from 'linkedom'

/**
 * What the documents buildTree makes answer faster than linkedom does, for
 * the questions readability asks of every page: the same answers, without
 * the objects and the matching linkedom spends on them. Documents linkedom
 * parses itself keep linkedom's answers (the methods check the mark).
 */

const BUILT = Symbol('built by buildTree')

/**
 * What a built page holds, recorded by buildTree as it makes the elements:
 * what a clean-up would otherwise search the page's whole source for before
 * it walks the tree (a scan of the source is 2% of an extraction).
 */
export interface PageHolds {
  /** A <table> element. */
  table: boolean
  /** A <base> element. */
  base: boolean
  /** An <input> of type radio or checkbox. */
  choice: boolean
  /** An element with an `itemtype` attribute (microdata). */
  itemtype: boolean
  /** A JSON-LD script. */
  jsonLd: boolean
}

export const holdsNothing = (): PageHolds => ({ table: false, base: false, choice: false, itemtype: false, jsonLd: false })

/** Marks a document as built: its elements get the answers below, and holdsOf answers with `holds` (filled in as the tree is built). */
export function markBuilt(document: object, holds: PageHolds) {
  ;(document as Record<symbol, unknown>)[BUILT] = holds
}

/** What the page of `node` holds, when buildTree built it; undefined for a document parsed otherwise (its source is searched instead). */
export function holdsOf(node: object): Readonly<PageHolds> | undefined {
  const { nodeType, ownerDocument } = node as { nodeType?: number; ownerDocument?: Record<symbol, unknown> | null }
  const document = nodeType === 9 ? (node as Record<symbol, unknown>) : ownerDocument
  return (document?.[BUILT] as PageHolds | undefined) ?? undefined
}

interface LinkedomNode {
  nodeType: number
  localName: string
  ownerDocument: Record<symbol, unknown> | null
  hasAttribute(name: string): boolean
  [key: symbol]: unknown
}

function isBuilt(node: LinkedomNode): boolean {
  return holdsOf(node) !== undefined
}

const probe = new DOMParser().parseFromString('<p a="1"></p>', 'text/html') as unknown as LinkedomNode & { querySelector(s: string): LinkedomNode; querySelectorAll(s: string): unknown[] }
const probeElement = probe.querySelector('p')

const symbolNamed = (object: object, name: string) => {
  const symbol = Object.getOwnPropertySymbols(object).find((candidate) => candidate.description === name)
  if (!symbol) throw new Error(`linkedom internals changed: no ${name} symbol`)
  return symbol
}
/**
 * linkedom links a node's attributes, children and end mark in one list
 * through these symbols, and keeps a text's or an attribute's value under
 * VALUE; read off instances, since linkedom does not export them.
 */
export const NEXT = symbolNamed(probeElement, 'next')
export const PREV = symbolNamed(probeElement, 'prev')
export const END = symbolNamed(probeElement, 'end')
const probeText = (probe as unknown as { createTextNode(data: string): object }).createTextNode('x')
export const VALUE = symbolNamed(probeText, 'value')
/** linkedom's NodeList (an Array), which its queries return. */
const NodeList = probe.querySelectorAll('p').constructor as new () => LinkedomNode[]

/** Replaces `name` on the prototype (of `instance`) that defines it, keeping the original for other documents. */
function override<T extends (...args: never[]) => unknown>(instance: object, name: string, make: (original: T) => T | PropertyDescriptor) {
  let prototype = Object.getPrototypeOf(instance)
  let descriptor: PropertyDescriptor | undefined
  while (prototype && !(descriptor = Object.getOwnPropertyDescriptor(prototype, name))) prototype = Object.getPrototypeOf(prototype)
  const original = (descriptor?.get ?? descriptor?.value) as T | undefined
  if (!prototype || typeof original !== 'function') throw new Error(`linkedom internals changed: no ${name}`)
  const made = make(original)
  Object.defineProperty(prototype, name, typeof made === 'function' ? { ...descriptor, value: made } : { ...descriptor, ...made })
}

/**
 * What `style` answers for an element with no style attribute: every
 * property is empty, as in linkedom's own declaration, and a write fails
 * loudly (nothing in the pipeline writes styles).
 */
const NO_STYLE: object = new Proxy(Object.freeze({}), {
  get: (_target, name) => (name === 'length' ? 0 : typeof name === 'string' ? '' : undefined),
  set: () => {
    throw new TypeError('styles of a parsed page are read-only')
  },
})

// readability asks every element for its `style` (is it display: none?), and linkedom makes a
// CSSStyleDeclaration for each (a Map behind a Proxy): about 6 % of a page's extraction.
override<() => unknown>(probeElement, 'style', (linkedomStyle) => ({
  get(this: LinkedomNode) {
    if (isBuilt(this) && !this.hasAttribute('style')) return NO_STYLE
    return linkedomStyle.call(this)
  },
}))

// The DOM standard lowercases the name given to an HTML document's createElement; linkedom keeps it as
// given, so readability's createElement("P") made an element named "P", which no lowercase test of a
// name (ours, or linkedom's own element classes) recognised as a paragraph.
override<(name: string, options?: unknown) => unknown>(probe, 'createElement', (linkedomCreate) =>
  function createElement(this: LinkedomNode, name: string, options?: unknown) {
    return linkedomCreate.call(this, isBuilt(this) ? name.toLowerCase() : name, options)
  },
)

// readability reads the text of nearly every element (is it empty? a byline?), so the text of big
// containers again and again; linkedom gathers it into an array of strings it then joins.
override<() => string>(probeElement, 'textContent', (linkedomText) => ({
  get(this: LinkedomNode) {
    if (!isBuilt(this)) return linkedomText.call(this)
    let text = ''
    const end = this[END]
    for (let next = this[NEXT] as LinkedomNode; next !== end; next = next[NEXT] as LinkedomNode) {
      if (next.nodeType === 3 || next.nodeType === 4) text += next[VALUE] as string
    }
    return text
  },
}))

/** Upper-case names by lower-case name: the few dozen names of a page, each upper-cased once. */
const UPPER = new Map<string, string>()

// readability compares `tagName` (and turndown `nodeName`) of every element it visits, often several
// times; linkedom upper-cases the name, a new string, at every read.
for (const name of ['tagName', 'nodeName']) {
  override<() => string>(probeElement, name, (linkedomName) => ({
    get(this: LinkedomNode) {
      if (!isBuilt(this)) return linkedomName.call(this)
      const { localName } = this
      let upper = UPPER.get(localName)
      if (upper === undefined) {
        upper = localName.toUpperCase()
        if (UPPER.size < 1024) UPPER.set(localName, upper)
      }
      return upper
    },
  }))
}

/** Elements below `root` in document order (attributes and end marks skipped), as linkedom's queries walk them. */
function collect(root: LinkedomNode, matches: (element: LinkedomNode) => boolean): LinkedomNode[] {
  const elements = new NodeList()
  const end = root[END]
  for (let next = root[NEXT] as LinkedomNode; next !== end; ) {
    if (next.nodeType === 1) {
      if (matches(next)) elements.push(next)
      // linkedom's querySelectorAll does not look inside a template (built pages hold none of its contents)
      if (next.localName === 'template') {
        next = (next[END] as LinkedomNode)[NEXT] as LinkedomNode
        continue
      }
    }
    next = next[NEXT] as LinkedomNode
  }
  return elements
}

/**
 * A selector that is only tag names, comma-separated ("script, noscript"):
 * readability's every query. Built pages name every element in lower case
 * (parse5 does, and createElement above), so names compare as they are.
 */
const TAG_LIST = /^\s*[a-z][a-z0-9-]*(?:\s*,\s*[a-z][a-z0-9-]*)*\s*$/i

// readability queries the whole page by tag name a dozen times (scripts, styles, fonts, images, meta);
// linkedom compiles each selector with css-select and upper-cases every element's name it compares.
for (const instance of [probeElement, probe]) {
  override<(selectors: string) => unknown>(instance, 'querySelectorAll', (linkedomQuery) =>
    function querySelectorAll(this: LinkedomNode, selectors: string) {
      if (!isBuilt(this) || !TAG_LIST.test(selectors)) return linkedomQuery.call(this, selectors)
      const names = new Set(selectors.toLowerCase().split(',').map((name) => name.trim()))
      return collect(this, (element) => names.has(element.localName))
    },
  )
  override<(name: string) => unknown>(instance, 'getElementsByTagName', (linkedomQuery) =>
    function getElementsByTagName(this: LinkedomNode, name: string) {
      if (!isBuilt(this)) return linkedomQuery.call(this, name)
      if (name === '*') return collect(this, () => true)
      const lower = name.toLowerCase()
      return collect(this, (element) => element.localName === lower)
    },
  )
}
