import type { DomElement } from './dom.js'
import { attributeOf, descendants } from './dom-walk.js'

/** A declaration of a style that hides its element, up to the next `;` (`!important` included). */
const HIDING_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)[^;]*/gi

export function isHidden(element: DomElement): boolean {
  if (element.hasAttribute('hidden')) return true
  if (attributeOf(element, 'aria-hidden') === 'true') return true
  const style = attributeOf(element, 'style')
  HIDING_STYLE.lastIndex = 0
  return !!style && HIDING_STYLE.test(style)
}

/** Lifts what isHidden reads on the element itself: its `hidden` attribute, `aria-hidden`, display:none or visibility:hidden in its style. */
export function show(element: DomElement): void {
  element.removeAttribute('hidden')
  if (attributeOf(element, 'aria-hidden') === 'true') element.removeAttribute('aria-hidden')
  const style = attributeOf(element, 'style')
  if (style) element.setAttribute('style', style.replace(HIDING_STYLE, ''))
}

const NEVER_SHOWN = ['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas']

/** Whether an element is a script, style, embedded object or hidden, or has one of the further `tags`. */
export function unseen(tags: readonly string[] = []): (element: DomElement) => boolean {
  const names = new Set([...NEVER_SHOWN, ...tags])
  return (element) => names.has(element.localName) || isHidden(element)
}

/**
 * The page's chrome and controls, which a part of the page kept as its
 * content goes without: navigation, header, asides, footer, forms and the
 * controls of a form. One list for every such part (a candidate container,
 * a page's main area, a page of sections, a grid of products).
 */
export const CHROME_TAGS = ['nav', 'header', 'aside', 'footer', 'form', 'button', 'select', 'input', 'textarea'] as const

/** Removes scripts, styles, embedded objects and hidden elements below `root`, and elements of any further `tags`. */
export function removeUnseen(root: DomElement, tags: readonly string[] = []) {
  for (const element of descendants(root, unseen(tags))) element.remove()
}
