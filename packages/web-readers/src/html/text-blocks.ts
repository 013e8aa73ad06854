import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'

/** Elements that start and end a run of text (as in to-text.ts, plus line-level ones). */
const BREAKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section',
  'summary', 'table', 'ul', 'caption', 'center', 'html', 'tr', 'td', 'th', 'br', 'option',
])
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg', 'iframe', 'object', 'button', 'select', 'input', 'textarea'])

/** A run of text between two block boundaries, as a reader sees it. */
export interface TextBlock {
  text: string
  /** Characters of `text` inside links. */
  linkChars: number
  /** The nearest block element around the run. */
  element: DomElement
}

/**
 * The runs of text of a subtree in document order, split at every block
 * boundary, white space collapsed: unlike leaf blocks, text loose in a
 * container beside its child blocks is a run of its own. One iterative walk.
 */
export function textBlocks(root: DomElement): TextBlock[] {
  const blocks: TextBlock[] = []
  let text = ''
  let linkChars = 0
  const containers: DomElement[] = [root]
  let linkDepth = 0
  const flush = () => {
    if (!text) return
    const trimmed = text.replace(/\s+/g, ' ').trim()
    if (trimmed) blocks.push({ text: trimmed, linkChars: Math.min(linkChars, trimmed.length), element: containers.at(-1)! })
    text = ''
    linkChars = 0
  }
  const leave = (element: DomElement) => {
    const name = element.localName
    if (name === 'a') linkDepth--
    if (BREAKS.has(name)) {
      flush()
      if (containers[containers.length - 1] === element) containers.pop()
    }
  }
  // firstChild and nextSibling, no recursion: deep trees cannot overflow.
  let node: DomNode | null = root.firstChild
  while (node) {
    const type = node.nodeType
    if (type === TEXT_NODE) {
      const value = node.textContent ?? ''
      text += value
      if (linkDepth) linkChars += value.replace(/\s+/g, ' ').length
    } else if (type === ELEMENT_NODE) {
      const element = node as DomElement
      const name = element.localName
      if (!SKIP.has(name)) {
        if (BREAKS.has(name)) {
          flush()
          if (name !== 'br' && name !== 'hr') containers.push(element)
        }
        if (name === 'a') linkDepth++
        if (node.firstChild) {
          node = node.firstChild
          continue
        }
        leave(element)
      }
    }
    while (node && node !== root && !node.nextSibling) {
      node = node.parentNode
      if (node && node !== root) leave(node as DomElement)
    }
    node = node && node !== root ? node.nextSibling : null
  }
  flush()
  return blocks
}
