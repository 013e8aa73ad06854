import { type DomDocument, type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from '../html/dom.js'
import { nextNode } from '../html/dom-walk.js'
import { SOURCE_MARKERS } from './challenge-vendors.js'

/**
 * What an HTML page shows and carries, read off its parsed tree (and, for
 * the text of scripts, which the tree does not keep, off its source) by
 * `readPageSignals`, for `judgePage` (page-outcome.ts) to say what the page
 * was. Numbers and flags only, never the page's text: what the judgement
 * says about a page (its evidence) is built from these, so it never quotes
 * the page outside the untrusted fence. `sample` and `headings` are kept
 * for the judgement's phrase tests and go no further.
 */
export interface PageSignals {
  /** Words of text a reader sees (scripts, styles, noscript, templates left out), counted up to WORD_CAP, where the walk stops. */
  visibleWords: number
  /** Of those, the words inside links (menus, a footer's link lists). */
  linkWords: number
  /** The first SAMPLE_CHARS characters of that text, white space collapsed: for the judgement's phrase tests only. */
  sample: string
  /** The title and the first <h1>, for the same tests. */
  headings: string
  /** The first child or grandchild of the body that is a client-side app's mount point (`#root`, `#__next`, `[ng-app]`...), as a selector, and its words. */
  appRoot?: { selector: string; words: number }
  /** `<script src>` tags in the source (the page's script bundles), in its first SCRIPT_SCAN_LIMIT characters; counted only on a short page (SHORT_PAGE_WORDS), else 0. */
  scriptBundles: number
  /** Characters of inline script (JSON data aside), in the same scan. */
  inlineScriptChars: number
  /** A `<noscript>` asks the reader to turn JavaScript on. */
  noscriptAsksForJs: boolean
  /** `<input type=password>` elements. */
  passwordInputs: number
  /** Words of the form around the first password field (its nearest `<form>`, else its parent's), to tell a sign-in page from a page with a sign-in box. */
  passwordFormWords: number
  /** JSON-LD or microdata says `isAccessibleForFree: false`. */
  notFree: boolean
  /** An element whose class or id names a paywall; looked for only when `notFree` on a page of fewer than WORD_CAP words. */
  paywallElement: boolean
  /** Names of the SOURCE_MARKERS found (challenge-vendors.ts); looked for only on a short page (SHORT_PAGE_WORDS). */
  markers: string[]
  /** The walk stopped at WALK_STEP_LIMIT nodes before WORD_CAP words: the counts are of the part walked. */
  walkCut: boolean
}

/**
 * Words counted at most, where the walk stops: every rule of the judgement
 * but the challenge headers needs fewer words (the paywall's teaser, the
 * most), so past it nothing in the page changes what it is, and an article's
 * walk ends early.
 */
export const WORD_CAP = 600
const SAMPLE_CHARS = 600
const HEADING_CHARS = 300
/** Nodes stepped over at most by the walk (the tree itself is capped at build: build-tree.ts). */
const WALK_STEP_LIMIT = 200_000
/** Source characters scanned for inline scripts and for markers at most. */
const SCRIPT_SCAN_LIMIT = 2 * 1024 * 1024
const MARKER_SCAN_LIMIT = 512 * 1024
/** Markers and scripts are read off the source only on pages of fewer words than this: a bot wall, a block page and a shell are short. */
export const SHORT_PAGE_WORDS = 200
const LD_JSON_CHARS = 100_000
const NOSCRIPT_CHARS = 2000
const FORM_DEPTH = 20

/** Elements whose text a reader never sees. */
const UNSEEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'title', 'iframe', 'object', 'embed', 'canvas'])
/** Ids client-side frameworks mount on (React's create-react-app and Vite templates, Next.js, Nuxt, Gatsby, Vue, SvelteKit, Angular's default `app-root` tag). */
const APP_ROOT_IDS = new Set(['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte', 'q-app', 'react-root', 'main-app'])
const APP_ROOT_ATTRIBUTES = ['data-reactroot', 'ng-app', 'ng-version', 'data-v-app']

/** A word: a run of letters or digits, or one CJK character (those scripts do not separate words). */
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}])[\p{L}\p{N}])+/gu
const ASKS_FOR_JS = /\b(?:enable|turn on|activate|allow|switch on)\b[^.!?]{0,40}\bjava-?script\b|\bjava-?script\b[^.!?]{0,40}\b(?:required|disabled|needed|turned off|not enabled|must be enabled|is off)\b|\b(?:requires?|needs?)\s+java-?script\b/i
const PAYWALL_NAME = /(?:^|[\s_-])pay-?wall(?:$|[\s_-])/i
const NOT_FREE = /"isAccessibleForFree"\s*:\s*(?:false|"false")/i

/**
 * The page's scripts, read off the source: the tree keeps no script
 * elements (build-tree.ts holds them out). A `<script` inside a comment or
 * another script's text counts too; the scan is bounded (SCRIPT_SCAN_LIMIT).
 */
function scanScripts(html: string): { bundles: number; inlineChars: number } {
  let bundles = 0
  let inlineChars = 0
  const source = html.length > SCRIPT_SCAN_LIMIT ? html.slice(0, SCRIPT_SCAN_LIMIT) : html
  const open = /<script\b([^>]*)>/gi
  for (let match = open.exec(source); match; match = open.exec(source)) {
    const end = source.indexOf('</script', open.lastIndex)
    const stop = end < 0 ? source.length : end
    const attributes = match[1]!
    if (/\bsrc\s*=/i.test(attributes)) bundles++
    else if (!/\btype\s*=\s*["']?application\/(?:ld\+)?json/i.test(attributes)) inlineChars += stop - open.lastIndex
    open.lastIndex = stop
  }
  return { bundles, inlineChars }
}

function words(text: string, limit: number): number {
  let count = 0
  WORD.lastIndex = 0
  while (count < limit && WORD.exec(text)) count++
  WORD.lastIndex = 0
  return count
}

/** Words of visible text below `root`, up to `limit`. */
function wordsBelow(root: DomNode, limit: number): number {
  let count = 0
  for (let node = root.firstChild; node && count < limit; ) {
    const unseen = node.nodeType === ELEMENT_NODE && UNSEEN.has((node as DomElement).localName)
    if (node.nodeType === TEXT_NODE) count += words(node.textContent ?? '', limit - count)
    node = nextNode(node, root, unseen)
  }
  return count
}

function appRootSelector(element: DomElement): string | undefined {
  const id = element.getAttribute('id')
  if (id && APP_ROOT_IDS.has(id)) return `#${id}`
  if (element.localName === 'app-root') return 'app-root'
  for (const attribute of APP_ROOT_ATTRIBUTES) if (element.hasAttribute(attribute)) return `[${attribute}]`
  return undefined
}

/** Elements among `parent`'s children, in order. */
function childElements(parent: DomNode): DomElement[] {
  return Array.from(parent.childNodes).filter((node): node is DomElement => node.nodeType === ELEMENT_NODE)
}

/** The mount point of a client-side app: a child or grandchild of the body, where frameworks put it. */
function findAppRoot(body: DomElement | null): { selector: string; words: number } | undefined {
  if (!body) return undefined
  for (const child of childElements(body)) {
    for (const element of [child, ...childElements(child)]) {
      const selector = appRootSelector(element)
      if (selector) return { selector, words: wordsBelow(element, WORD_CAP) }
    }
  }
  return undefined
}

/** The nearest `<form>` around a field (at most FORM_DEPTH levels up), else its parent. */
function formOf(field: DomElement): DomNode {
  let node: DomNode | null = field.parentNode
  for (let depth = 0; node && depth < FORM_DEPTH; depth++, node = node.parentNode) {
    if (node.nodeType === ELEMENT_NODE && (node as DomElement).localName === 'form') return node
  }
  return field.parentNode ?? field
}

/** Whether an element below `root` has a class or id that names a paywall (WALK_STEP_LIMIT nodes at most). */
function hasPaywallElement(root: DomNode): boolean {
  let steps = 0
  for (let node = root.firstChild; node && steps < WALK_STEP_LIMIT; node = nextNode(node, root), steps++) {
    if (node.nodeType !== ELEMENT_NODE) continue
    const element = node as DomElement
    const named = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`
    if (named.length > 1 && PAYWALL_NAME.test(named)) return true
  }
  return false
}

/** The SOURCE_MARKERS found in the source's first MARKER_SCAN_LIMIT characters, by name. */
function findMarkers(html: string): string[] {
  const source = html.length > MARKER_SCAN_LIMIT ? html.slice(0, MARKER_SCAN_LIMIT) : html
  return SOURCE_MARKERS.filter((marker) => marker.pattern.test(source)).map((marker) => marker.name)
}

/**
 * One bounded walk of the parsed page, in document order, until WORD_CAP
 * words or WALK_STEP_LIMIT nodes, reading without changing anything:
 * extraction runs on the same tree afterwards and its output must not
 * change. On a short page, the source's scripts and markers are read too.
 */
export function readPageSignals(document: DomDocument, html: string): PageSignals {
  const root: DomNode = document.documentElement ?? document
  let visibleWords = 0
  let linkWords = 0
  /** While the walk is inside a link: the node after it (links do not nest in a parsed page). */
  let afterLink: DomNode | null | undefined
  let sample = ''
  let noscriptAsksForJs = false
  let passwordInputs = 0
  let password: DomElement | undefined
  let notFree = false
  let heading: string | undefined
  let steps = 0
  let node: DomNode | null = root.firstChild
  for (; node && steps < WALK_STEP_LIMIT && visibleWords < WORD_CAP; steps++) {
    let skip = false
    if (node === afterLink) afterLink = undefined
    if (node.nodeType === ELEMENT_NODE) {
      const element = node as DomElement
      const name = element.localName
      skip = UNSEEN.has(name)
      if (name === 'a' && afterLink === undefined) afterLink = nextNode(element, root, true)
      // The tree keeps only JSON-LD scripts (build-tree.ts).
      if (name === 'script') notFree ||= /ld\+json/i.test(element.getAttribute('type') ?? '') && NOT_FREE.test((element.textContent ?? '').slice(0, LD_JSON_CHARS))
      else if (name === 'noscript') noscriptAsksForJs ||= ASKS_FOR_JS.test((element.textContent ?? '').slice(0, NOSCRIPT_CHARS).replace(/<[^>]*>/g, ' '))
      else if (name === 'input' && (element.getAttribute('type') ?? '').trim().toLowerCase() === 'password') {
        passwordInputs++
        password ??= element
      }
      else if (name === 'h1') heading ??= (element.textContent ?? '').slice(0, HEADING_CHARS)
      else if (name === 'meta') {
        notFree ||= element.getAttribute('itemprop')?.trim() === 'isAccessibleForFree' && element.getAttribute('content')?.trim().toLowerCase() === 'false'
      }
    } else if (node.nodeType === TEXT_NODE) {
      const text = node.textContent ?? ''
      const counted = words(text, WORD_CAP - visibleWords)
      visibleWords += counted
      if (afterLink !== undefined) linkWords += counted
      if (sample.length < SAMPLE_CHARS) sample = `${sample} ${text.replace(/\s+/g, ' ').trim()}`.trim().slice(0, SAMPLE_CHARS)
    }
    node = nextNode(node, root, skip)
  }
  const short = visibleWords < SHORT_PAGE_WORDS
  const scripts = short ? scanScripts(html) : { bundles: 0, inlineChars: 0 }
  const appRoot = findAppRoot(document.body)
  return {
    visibleWords,
    linkWords,
    sample,
    headings: `${document.title ?? ''} | ${heading ?? ''}`.replace(/\s+/g, ' ').trim().slice(0, HEADING_CHARS),
    ...(appRoot ? { appRoot } : {}),
    scriptBundles: scripts.bundles,
    inlineScriptChars: scripts.inlineChars,
    noscriptAsksForJs,
    passwordInputs,
    passwordFormWords: password ? wordsBelow(formOf(password), WORD_CAP) : 0,
    notFree,
    paywallElement: notFree && visibleWords < WORD_CAP && hasPaywallElement(root),
    markers: short ? findMarkers(html) : [],
    walkCut: node !== null && visibleWords < WORD_CAP,
  }
}
