import type { DomElement } from './dom.js'
import { CHROME_TAGS, isHidden, show } from './dom-clean.js'
import { measureText } from './dom-walk.js'
import { isDialog } from './page-chrome.js'

/**
 * A page hidden until its scripts run: a shop's lock app wraps the whole
 * content in `style="display:none"` and shows it once its check passed
 * (Shopify's EasyLockdown), a loader keeps `visibility:hidden` on the page
 * until its fonts came, a menu left open marks `<main>` `aria-hidden`.
 * A browser shows that content a moment later; a reader of the served HTML
 * that leaves hidden elements out (dom-clean.ts) sees the shop's
 * announcement bar and nothing else.
 *
 * The page is hidden when one hidden element, not a dialog, holds at least
 * MIN_CHARS of text and at least VISIBLE_RATIO times the text the page
 * shows; the text of navigation, header, footer, asides and forms counts on
 * neither side, nor do scripts and styles. Its own hiding is lifted; what is
 * hidden inside it stays hidden.
 *
 * Measured on WCXB dev and ScrapingHub: five pages have such an element
 * (11, 23, 46 times their visible text, and two with none visible); on
 * every other page the largest hidden element outside a dialog holds at
 * most 1.5 times the visible text (a form's hidden steps, a list of all
 * authors). Three pages change, no other page's output: a coffee shop's
 * product page 0.10 -> 0.87 and its category page 0.01 -> 0.44 (both
 * behind EasyLockdown), a marketplace's listing 0.69 -> 0.75 (its <main>
 * aria-hidden); WCXB products +0.009, collections +0.005. extract-html.ts
 * asks only when the page read as it stands gave under THIN_CHARS (106 of
 * the 1,539 pages): the walk costs about 3% of an extraction, which the
 * other pages need not pay.
 */

/** A hidden element holding less text than this (characters) is a part of the page, not the page. */
export const MIN_CHARS = 1000
/** How many times the page's visible text the hidden element holds. */
export const VISIBLE_RATIO = 5
/** Text extracted (characters) under which a page is looked at for a hidden page. */
export const THIN_CHARS = 1000

const NOT_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg', ...CHROME_TAGS])

/** Whether an ancestor of `element` below `root` is hidden. */
function hiddenAbove(element: DomElement, root: DomElement): boolean {
  for (let node = element.parentNode as DomElement | null; node && node !== root; node = node.parentNode as DomElement | null) {
    if (node.nodeType === 1 && isHidden(node)) return true
  }
  return false
}

/** The element hiding the page's content below `body`, if there is one (see above). One walk of the body. */
export function findHiddenPage(body: DomElement): DomElement | undefined {
  const measures = measureText(body, (element) => !NOT_TEXT.has(element.localName))
  let hidden = 0
  let largest: { element: DomElement; chars: number } | undefined
  for (const [element, measure] of measures) {
    if (element === body || !isHidden(element) || hiddenAbove(element, body)) continue
    hidden += measure.chars
    if (!isDialog(element) && measure.chars > (largest?.chars ?? 0)) largest = { element, chars: measure.chars }
  }
  const visible = (measures.get(body)?.chars ?? 0) - hidden
  if (!largest || largest.chars < MIN_CHARS || largest.chars < VISIBLE_RATIO * visible) return undefined
  return largest.element
}

/** Shows the page's hidden content below `body` (see above); whether there was any. */
export function showHiddenPage(body: DomElement): boolean {
  const page = findHiddenPage(body)
  if (page) show(page)
  return !!page
}
