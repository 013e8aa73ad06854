import { classWords } from './boilerplate-words.js'
import { type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { attributeOf, nextNode } from './dom-walk.js'

/**
 * The parts of a page that belong to the site, not to what the page is
 * about: the site's footer (its newsletter box, its links, its legal lines;
 * a <footer> inside an <article> or <main> is that section's and stays),
 * dialogs (a cart drawer, a size picker, a sign-in box, a policy shown in a
 * modal; by role, aria-modal or a <dialog> element: the element added, WCXB
 * +0.0003, three pages better, 0.48 -> 0.71, 0.59 -> 0.71, 0.97 -> 0.98,
 * none worse), and consent prompts (OneTrust's SDK, a cookie bar, a GDPR notice).
 * Readability's first pass sets most of them aside by their class names; when
 * that pass finds too little and readability reads the page again without
 * that filter, they are what it picks: on WCXB's development split, category
 * pages read as their footer's newsletter sign-up and listings read as their
 * cookie notice. extract-html.ts removes them before any candidate is chosen,
 * before each of readability's readings, and from the body it falls back to.
 *
 * An element that holds the page's headline (`<h1>`), its `<main>` or an
 * `<article>` is never chrome, whatever it is called: some sites put the
 * whole page in a dialog, or name every block with a word read here.
 */
export type ChromeKind = 'footer' | 'dialog' | 'consent'

/**
 * Class and id words that name a consent prompt. Whole words only: not
 * `cmp`, which names a consent platform on some sites and every component
 * (`cmp-text`, `cmp-container`) on every Adobe Experience Manager site.
 */
const CONSENT_WORDS = new Set(['cookie', 'cookies', 'consent', 'gdpr', 'onetrust', 'cookiebanner', 'cookiebar', 'cookieconsent', 'cookienotice'])
const CONSENT_HINT = /cookie|consent|gdpr|onetrust/i
const DIALOG_ROLES = new Set(['dialog', 'alertdialog'])
/** Where a <footer> is its section's (an article's byline and tags), not the site's. */
const SECTIONING = new Set(['article', 'main'])
const CONTENT = new Set(['h1', 'main', 'article'])

function insideSectioning(element: DomElement, root: DomElement): boolean {
  for (let node = element.parentNode; node && node !== root; node = node.parentNode) {
    if (node.nodeType === ELEMENT_NODE && SECTIONING.has((node as DomElement).localName)) return true
  }
  return false
}

function holdsContent(element: DomElement): boolean {
  for (let node: DomNode | null = element.firstChild; node; node = nextNode(node, element)) {
    if (node.nodeType === ELEMENT_NODE && CONTENT.has((node as DomElement).localName)) return true
  }
  return false
}

/** A dialog: role dialog or alertdialog, aria-modal, or a <dialog> element. */
export function isDialog(element: DomElement): boolean {
  if (element.localName === 'dialog' || attributeOf(element, 'aria-modal') === 'true') return true
  const role = attributeOf(element, 'role')
  return role !== null && DIALOG_ROLES.has(role)
}

/** What kind of chrome `element` (below `root`) is; undefined when it is none (or holds content). */
export function chromeKind(element: DomElement, root: DomElement): ChromeKind | undefined {
  // most elements of a page have no attribute, and only a <footer> or a <dialog> is chrome without one
  if (element.localName !== 'footer' && element.localName !== 'dialog' && !element.hasAttributes()) return undefined
  let kind: ChromeKind | undefined
  const role = attributeOf(element, 'role')
  if ((element.localName === 'footer' || role === 'contentinfo') && !insideSectioning(element, root)) kind = 'footer'
  else if (isDialog(element)) kind = 'dialog'
  else {
    const className = attributeOf(element, 'class')
    const id = attributeOf(element, 'id')
    if (((className !== null && CONSENT_HINT.test(className)) || (id !== null && CONSENT_HINT.test(id))) && classWords(`${className ?? ''} ${id ?? ''}`).some((word) => CONSENT_WORDS.has(word))) kind = 'consent'
  }
  return kind && !holdsContent(element) ? kind : undefined
}

/** Removes every element below `root` that `is` picks, outermost first; returns how many went. */
function removeWhere(root: DomElement, is: (element: DomElement, root: DomElement) => boolean): number {
  let removed = 0
  for (let node: DomNode | null = root.firstChild; node; ) {
    if (node.nodeType === ELEMENT_NODE && is(node as DomElement, root)) {
      const next = nextNode(node, root, true)
      ;(node as DomElement).remove()
      removed++
      node = next
      continue
    }
    node = nextNode(node, root)
  }
  return removed
}

/** Removes every element below `root` that is chrome; returns how many went. */
export function removePageChrome(root: DomElement): number {
  return removeWhere(root, (element) => chromeKind(element, root) !== undefined)
}

const NAVIGATION_ROLES = new Set(['navigation', 'banner'])

/**
 * The site's navigation: a <nav> or a <header> (role navigation or banner)
 * outside an <article> or <main>, holding no content. Only the body returned
 * when no main content is found goes without it (extract-html.ts): there it
 * is what a reader meets first, a menu of the whole site, and there is no
 * candidate left for it to mislead. Before the candidates are chosen it
 * stays: readability's scoring sets it aside, and removing it wholesale cost
 * the article benchmark (prune-content.ts).
 */
export function isSiteNavigation(element: DomElement, root: DomElement): boolean {
  const role = attributeOf(element, 'role')
  if (!(element.localName === 'nav' || element.localName === 'header' || (role !== null && NAVIGATION_ROLES.has(role)))) return false
  return !insideSectioning(element, root) && !holdsContent(element)
}

/** Removes the site's navigation below `root`; returns how many elements went. */
export function removeSiteNavigation(root: DomElement): number {
  return removeWhere(root, isSiteNavigation)
}
