import type { DomElement } from './dom.js'
import { attributeOf, descendants } from './dom-walk.js'

export function isHidden(element: DomElement): boolean {
  if (element.hasAttribute('hidden')) return true
  if (attributeOf(element, 'aria-hidden') === 'true') return true
  const style = attributeOf(element, 'style')
  return !!style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style)
}

const NEVER_SHOWN = ['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas']

/** Removes scripts, styles, embedded objects and hidden elements below `root`, and elements of any further `tags`. */
export function removeUnseen(root: DomElement, tags: readonly string[] = []) {
  const names = new Set([...NEVER_SHOWN, ...tags])
  for (const element of descendants(root, (child) => names.has(child.localName) || isHidden(child))) element.remove()
}
