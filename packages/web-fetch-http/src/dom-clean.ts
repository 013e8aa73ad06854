import type { DomElement } from './dom.js'

export function isHidden(element: DomElement): boolean {
  if (element.hasAttribute('hidden')) return true
  if (element.getAttribute('aria-hidden') === 'true') return true
  const style = element.getAttribute('style')
  return !!style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style)
}

const NEVER_SHOWN = 'script, style, noscript, template, iframe, object, embed, svg, canvas'

/** Removes scripts, styles, embedded objects and hidden elements below `root` (and any further `selector`). */
export function removeUnseen(root: DomElement, selector?: string) {
  for (const element of Array.from(root.querySelectorAll(selector ? `${NEVER_SHOWN}, ${selector}` : NEVER_SHOWN))) element.remove()
  for (const element of Array.from(root.querySelectorAll('[hidden], [aria-hidden], [style]'))) if (isHidden(element)) element.remove()
}
