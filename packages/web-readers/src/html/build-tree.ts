import { DOMParser } from 'linkedom'
import { Parser, Token, type TreeAdapter, type TreeAdapterTypeMap, html as parse5Html } from 'parse5'
import { END, NEXT, PREV, VALUE, holdsNothing, markBuilt } from './built-document.js'
import { DocumentError } from '../workers/document-error.js'
import type { DomDocument, DomElement, DomNode } from './dom.js'


/**
 * The tree the HTML standard's tree-construction algorithm builds (parse5),
 * made of linkedom nodes, which readability, turndown and our serializers
 * read. One tree, built as parse5 goes: no second parse.
 *
 * What never reaches the output is not built: comments, the text of scripts
 * (but JSON-LD, which readability reads for metadata) and styles, template
 * contents and inline SVG are kept out of the linkedom tree (parse5 still
 * parses them, so a malformed `</script` cannot swallow the article), and
 * white space between two block boxes, which never renders, is not made
 * into text nodes.
 */

const NS = parse5Html.NS

/** A linkedom node as this file uses it, with the marks the adapter sets (symbol keys). */
interface Node extends DomElement {
  [key: symbol]: unknown
  data: string
  lastChild: Node | null
  previousSibling: Node | null
  parentNode: Node | null
  insertBefore(node: Node, reference: Node | null): void
  getAttributeNames(): string[]
}
type Element = Node
type LinkedomMap = TreeAdapterTypeMap<Node, Node, Node, Node, Node, Node, Node, Node, Node, Node>

/** Set on nodes kept out of the linkedom tree, and on everything parse5 puts inside them. */
const HELD = Symbol('held out of the tree')
/** The parent parse5 gave a held node (parse5 asks for it back during foster parenting). */
const HELD_PARENT = Symbol('held parent')
const TEMPLATE_CONTENT = Symbol('template content')
/** The namespace of an element not in HTML's (SVG, MathML). */
const NAMESPACE = Symbol('namespace')
/** A script's text, collected (up to SCRIPT_SCAN_CHARS) to find the streaming calls (React's, Marko's). */
const SCRIPT_TEXT = Symbol('script text')
/** An <input> that is one choice of a menu (PageHolds.choice). */
const CHOICE_TYPE = /^\s*(?:radio|checkbox)\s*$/i
const SCRIPT_SCAN_CHARS = 64 * 1024

/** Boxes that are blocks or not rendered: white space between two of them (or at either end of one) never renders. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'base', 'blockquote', 'body', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hgroup', 'hr', 'html', 'li', 'link', 'main', 'meta',
  'nav', 'noscript', 'ol', 'option', 'p', 'section', 'select', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'title', 'tr',
  'ul', 'caption', 'colgroup', 'col', 'script', 'style', 'template',
])
const WHITE_SPACE = /^[ \t\n\f\r]*$/

/** The streaming calls that move a hidden segment into place: React's $RC(boundary, segment) and $RS(segment, placeholder), and Marko's $af<name>(n), read as $RS. */
export interface StreamingMove {
  kind: 'RC' | 'RS'
  from: string
  to: string
}

export interface BuiltTree {
  document: DomDocument
  /** The calls found in the page's scripts, in order. */
  moves: StreamingMove[]
  /** Elements whose id has React's streaming form (`S:0`, `B:0`, `P:0`, maybe after a prefix), by id. */
  streamingIds: Map<string, DomElement>
}

/**
 * A tree this large is refused: a 5 MB page of ordinary markup builds well
 * under it, but the standard re-opens formatting elements in every new
 * paragraph (a page of <b> tags that never close), which can build a number
 * of elements in the square of the tags'.
 */
export const MAX_ELEMENTS = 1_000_000

/**
 * Below MAX_ELEMENTS, a page may build at most ELEMENTS_FLOOR elements plus
 * one for every two characters of its markup: a tag in the source takes at
 * least three (`<b>`), and what the standard adds (html, head, body, tbody,
 * a row around stray cells) is a few per table, so an ordinary page stays
 * far under it. What goes past it is elements the parser makes up (formatting
 * re-opened in every paragraph: 20,000 tags in 0.4 MB built a million
 * elements, 6.5 s and 535 MB before the fixed cap), so the work of building
 * a tree stays linear in the page.
 */
export const ELEMENTS_FLOOR = 10_000

/** The most elements the tree of `chars` characters of markup may have. */
export function elementLimit(chars: number): number {
  return Math.min(MAX_ELEMENTS, ELEMENTS_FLOOR + Math.floor(chars / 2))
}

/** React's ids of segments (S), boundaries (B) and placeholders (P). */
const STREAMING_ID = /(?:^|[^A-Za-z0-9])[BSP]:[0-9a-z]+$/i
/** Marko's async fragments: `af<name><n>`, the fragment, and `af<name>ph<n>`, its placeholder. */
const FRAGMENT_ID = /^af\w{1,40}\d{1,9}$/

// Attributes are linked in through linkedom's list symbols (built-document.ts): appended in constant time
// (its setAttribute searches the list first, quadratic for a tag with many attributes; parse5 has already
// dropped duplicate names).

/** Links an attribute after `previous` (the element itself or one of its attributes). */
function linkAttribute(document: LinkedomDocument, element: Element, previous: Record<symbol, unknown>, name: string, value: string) {
  const attribute = document.createAttribute(name)
  attribute[VALUE] = value
  attribute.ownerElement = element
  const next = previous[NEXT] as Record<symbol, unknown>
  previous[NEXT] = attribute
  attribute[PREV] = previous
  attribute[NEXT] = next
  next[PREV] = attribute
}

function attributeName(attribute: Token.Attribute): string {
  return attribute.prefix ? `${attribute.prefix}:${attribute.name}` : attribute.name
}

/** React's markers of a Suspense boundary (`<!--$?-->` … `<!--/$-->`), the only comments kept: $RC reads them. */
const REACT_MARKERS = new Set(['$', '$?', '$!', '/$'])
const MOVE_CALL = /\$R([CS])\(\s*"([^"]{1,100})"\s*,\s*"([^"]{1,100})"/g
/** Marko's call that places async fragment n: `$af<name>(n)`, or `$af<name>(n,"m")` (after fragment m). */
const FRAGMENT_CALL = /\$af(\w{1,40})\((\d{1,9})[,)]/g

/** The members of parse5's tokenizer (8.1.1, pinned) that skipPlainRuns reads and replaces. */
interface PlainRunTokenizer {
  preprocessor: { html: string; pos: number }
  runEnd: number
  _emitCodePoint(cp: number): void
  _extendRun(cp: number): void
  [state: string]: unknown
}

/**
 * States in which most characters are only appended to the text, comment or
 * attribute value being built, with the characters at which the tokenizer's
 * own step must run (a tag or reference may start, the input needs rewriting
 * or line counting, a surrogate needs pairing). `emit`: the step appends by
 * `_emitCodePoint` (a character token) rather than `_extendRun`.
 */
const PLAIN_RUN_STATES: { state: string; stops: string; emit: boolean }[] = [
  { state: '_stateScriptData', stops: '<', emit: true },
  { state: '_stateRawtext', stops: '<', emit: true },
  { state: '_stateComment', stops: '<-', emit: false },
  { state: '_stateAttributeValueDoubleQuoted', stops: '"&', emit: false },
  { state: '_stateAttributeValueSingleQuoted', stops: "'&", emit: false },
]
const ALWAYS_STOP = '\0\r\n'
const EOF = -1

/**
 * Script and style text, comments and attribute values are most of a page's
 * bytes (scripts, styles and comments alone are 60 % of the shared
 * benchmark's) and parse5 reads them one code point per step. In the states
 * above, after the tokenizer's own step for a character that is only
 * appended, the run is extended to the next stop character at once, exactly
 * as the steps would extend it one by one. Only this parser's tokenizer is
 * changed (per-instance methods); build-tree.spec.ts compares the trees with
 * those of parse5 alone.
 */
function skipPlainRuns(tokenizer: PlainRunTokenizer) {
  for (const { state, stops, emit } of PLAIN_RUN_STATES) {
    const stopCodes = new Set([...stops, ...ALWAYS_STOP].map((char) => char.charCodeAt(0)))
    const pattern = new RegExp(`[${(stops + ALWAYS_STOP).replace(/[-\]\\^]/g, '\\$&')}\\uD800-\\uDFFF]`, 'g')
    const step = (tokenizer[state] as (cp: number) => void).bind(tokenizer)
    tokenizer[state] = (cp: number) => {
      if (cp === EOF || stopCodes.has(cp) || (cp >= 0xd800 && cp <= 0xdfff)) return step(cp)
      if (emit) tokenizer._emitCodePoint(cp)
      else tokenizer._extendRun(cp)
      const { preprocessor } = tokenizer
      if (tokenizer.runEnd !== preprocessor.pos + 1) return
      pattern.lastIndex = preprocessor.pos + 1
      const stop = pattern.exec(preprocessor.html)?.index ?? preprocessor.html.length
      preprocessor.pos = stop - 1
      tokenizer.runEnd = stop
    }
  }
}

/** The members of parse5's tokenizer (8.1.1, pinned) that appendRunsAsSlices reads and replaces. */
interface RunTokenizer {
  preprocessor: { html: string }
  runStart: number
  runEnd: number
  currentToken: { type: Token.TokenType; data: string } | null
  currentCharacterToken: { chars: string }
  currentAttr: { value: string }
  _flushRun(text: string): void
}

/**
 * parse5 copies every run of 13 characters or more that it appends to a
 * text, comment or attribute value, so that no string cut from the page
 * keeps the whole page in memory for as long as it lives. Here the page
 * lives no longer than its tree (the worker sends copies of what it keeps),
 * so a run is appended as the slice it is, which saves copying most of the
 * page's text and attribute bytes once more.
 */
function appendRunsAsSlices(tokenizer: RunTokenizer) {
  if (typeof tokenizer._flushRun !== 'function') throw new Error('parse5 internals changed: no _flushRun')
  tokenizer._flushRun = (text: string) => {
    if (tokenizer.runEnd === tokenizer.runStart && text.length === 0) return
    const run = tokenizer.preprocessor.html.slice(tokenizer.runStart, tokenizer.runEnd) + text
    const token = tokenizer.currentToken
    tokenizer.runStart = tokenizer.runEnd
    if (token === null) tokenizer.currentCharacterToken.chars += run
    else if (token.type === Token.TokenType.COMMENT) token.data += run
    else tokenizer.currentAttr.value += run
  }
}

interface LinkedomDocument extends Node {
  createElement(name: string): Node
  createElementNS(namespace: string, name: string): Node
  createAttribute(name: string): Record<symbol, unknown> & { ownerElement: unknown }
  createTextNode(data: string): Node
  createComment(data: string): Node
  createDocumentFragment(): Node
}

export function buildTree(html: string): BuiltTree {
  const document = new DOMParser().parseFromString('', 'text/html') as unknown as LinkedomDocument
  const holds = holdsNothing()
  markBuilt(document, holds)
  const moves: StreamingMove[] = []
  const streamingIds = new Map<string, DomElement>()
  let elements = 0
  const limit = elementLimit(html.length)
  let mode = parse5Html.DOCUMENT_MODE.NO_QUIRKS
  // Every comment but React's markers: parse5 appends it, and the append does nothing.
  const comment = { nodeType: 8, [HELD]: true } as unknown as Node

  const hold = (node: Node, parent: Node) => {
    node[HELD] = true
    node[HELD_PARENT] = parent
  }

  // White space whose fate waits on what comes next: dropped before a block or the end of its parent, kept otherwise.
  let pendingParent: Node | null = null
  let pendingText = ''
  const flush = (keep: boolean) => {
    const parent = pendingParent
    pendingParent = null
    if (parent && keep) appendText(parent, pendingText, true)
  }
  const isBlock = (node: Node) => node.nodeType === 1 && BLOCKS.has(node.localName)

  const appendText = (parent: Node, text: string, force = false) => {
    const last = parent.lastChild
    if (last && last.nodeType === 3) {
      last.data += text
      return
    }
    if (!force && parent.nodeType === 1 && isBlock(last ?? parent) && WHITE_SPACE.test(text)) {
      pendingParent = parent
      pendingText = text
      return
    }
    parent.appendChild(document.createTextNode(text))
  }

  const adapter: TreeAdapter<LinkedomMap> = {
    createDocument: () => document,
    createDocumentFragment() {
      // Only template contents are fragments, and they never render.
      const fragment = document.createDocumentFragment()
      fragment[HELD] = true
      return fragment
    },
    createElement(tagName, namespaceURI, attrs) {
      if (++elements > limit) {
        throw new DocumentError(
          'WEB_FETCH_TOO_LARGE',
          `The page builds more than ${limit.toLocaleString('en')} elements from ${html.length.toLocaleString('en')} characters of markup (markup that nests or re-opens tags without end), too many to read as a page.`,
          { limit },
        )
      }
      const element = namespaceURI === NS.HTML ? document.createElement(tagName) : document.createElementNS(namespaceURI, tagName)
      // A new element has no children: its last attribute is the node before its end.
      const end = element[END] as Record<symbol, unknown>
      for (const attribute of attrs) {
        linkAttribute(document, element, end[PREV] as Record<symbol, unknown>, attributeName(attribute), attribute.value)
        const { name, value } = attribute
        if (name === 'id' && !streamingIds.has(value) && (value.includes(':') ? STREAMING_ID.test(value) : value.startsWith('af') && FRAGMENT_ID.test(value))) streamingIds.set(value, element)
        else if (name === 'itemtype') holds.itemtype = true
      }
      if (namespaceURI !== NS.HTML) element[NAMESPACE] = namespaceURI
      if (namespaceURI === NS.SVG || tagName === 'style') element[HELD] = true
      else if (tagName === 'script') {
        if (attrs.some((a) => a.name === 'type' && /application\/ld\+json/i.test(a.value))) holds.jsonLd = true
        else {
          element[HELD] = true
          element[SCRIPT_TEXT] = ''
        }
      } else if (tagName === 'table') holds.table = true
      else if (tagName === 'base') holds.base = true
      else if (tagName === 'input' && !holds.choice) holds.choice = attrs.some((a) => a.name === 'type' && CHOICE_TYPE.test(a.value))
      return element
    },
    createCommentNode: (data) => (REACT_MARKERS.has(data) ? document.createComment(data) : comment),
    createTextNode: (value) => document.createTextNode(value),

    appendChild(parent, child) {
      if (child === comment) return
      if (child[HELD] || parent[HELD]) return hold(child, parent)
      flush(parent !== pendingParent || !isBlock(child))
      parent.appendChild(child)
    },
    insertBefore(parent, child, reference) {
      if (child === comment) return
      if (child[HELD] || parent[HELD]) return hold(child, parent)
      flush(true)
      if (reference.parentNode === parent) parent.insertBefore(child, reference)
      else parent.appendChild(child)
    },
    setTemplateContent(template, content) {
      template[TEMPLATE_CONTENT] = content
    },
    getTemplateContent: (template) => template[TEMPLATE_CONTENT] as Node,
    setDocumentType() {},
    setDocumentMode(_document, value) {
      mode = value
    },
    getDocumentMode: () => mode,
    detachNode(node) {
      if (node[HELD]) {
        node[HELD_PARENT] = null
        return
      }
      flush(true)
      node.remove()
    },
    insertText(parent, text) {
      if (parent[HELD]) {
        const seen = parent[SCRIPT_TEXT]
        if (typeof seen === 'string' && seen.length < SCRIPT_SCAN_CHARS) parent[SCRIPT_TEXT] = seen + text
        return
      }
      if (pendingParent === parent) {
        pendingParent = null
        text = pendingText + text
      } else flush(true)
      appendText(parent, text)
    },
    insertTextBefore(parent, text, reference) {
      if (parent[HELD]) return
      flush(true)
      const before = reference.previousSibling
      if (before && before.nodeType === 3) before.data += text
      else if (reference.parentNode === parent) parent.insertBefore(document.createTextNode(text), reference)
      else appendText(parent, text, true)
    },
    adoptAttributes(recipient, attrs) {
      // <html> or <body> again: its new attributes go after those it has (a few, in practice).
      let last = recipient as Record<symbol, unknown>
      while ((last[NEXT] as Node).nodeType === 2) last = last[NEXT] as Record<symbol, unknown>
      for (const attribute of attrs) {
        const name = attributeName(attribute)
        if (recipient.hasAttribute(name)) continue
        if (name === 'itemtype') holds.itemtype = true
        linkAttribute(document, recipient, last, name, attribute.value)
        last = last[NEXT] as Record<symbol, unknown>
      }
    },

    getFirstChild: (node) => node.firstChild as Node | null,
    getChildNodes: (node) => Array.from(node.childNodes) as Node[],
    getParentNode: (node) => (node[HELD] ? (node[HELD_PARENT] as Node | null) : node.parentNode),
    getAttrList: (element) => element.getAttributeNames().map((name) => ({ name, value: element.getAttribute(name) ?? '' })),
    getTagName: (element) => element.localName,
    getNamespaceURI: (element) => (element[NAMESPACE] as parse5Html.NS | undefined) ?? NS.HTML,
    getTextNodeContent: (node) => node.data,
    getCommentNodeContent: (node) => node.data,
    getDocumentTypeNodeName: () => '',
    getDocumentTypeNodePublicId: () => '',
    getDocumentTypeNodeSystemId: () => '',
    isTextNode: (node): node is Node => node.nodeType === 3,
    isCommentNode: (node): node is Node => node.nodeType === 8,
    isDocumentTypeNode: (node): node is Node => node.nodeType === 10,
    isElementNode: (node): node is Node => node.nodeType === 1,
    setNodeSourceCodeLocation() {},
    getNodeSourceCodeLocation: () => undefined,
    updateNodeSourceCodeLocation() {},

    onItemPop(element) {
      if (pendingParent === element) flush(false)
      const text = element[SCRIPT_TEXT]
      if (typeof text !== 'string') return
      element[SCRIPT_TEXT] = undefined
      if (text.includes('$R')) {
        for (const match of text.matchAll(MOVE_CALL)) moves.push({ kind: match[1] === 'C' ? 'RC' : 'RS', from: match[2]!, to: match[3]! })
      }
      // Marko's $af<name>(n): the fragment's children replace its placeholder, as $RS does.
      if (text.includes('$af')) {
        for (const match of text.matchAll(FRAGMENT_CALL)) moves.push({ kind: 'RS', from: `af${match[1]}${match[2]}`, to: `af${match[1]}ph${match[2]}` })
      }
    },
  }
  const parser = new Parser<LinkedomMap>({ treeAdapter: adapter, scriptingEnabled: true })
  skipPlainRuns(parser.tokenizer as unknown as PlainRunTokenizer)
  appendRunsAsSlices(parser.tokenizer as unknown as RunTokenizer)
  parser.tokenizer.write(html, true)
  // white space at the very end, after a block
  flush(false)
  return { document: document as unknown as DomDocument, moves, streamingIds }
}
