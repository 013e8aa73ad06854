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
    const trimmed = text.replace(/\s+/g, ' ').trim()
    if (trimmed) blocks.push({ text: trimmed, linkChars: Math.min(linkChars, trimmed.length), element: containers.at(-1)! })
    text = ''
    linkChars = 0
  }
  // An explicit stack of (node, entered) so that deep trees cannot overflow.
  const stack: { node: DomNode; leaving: boolean }[] = []
  pushChildren(stack, root)
  while (stack.length) {
    const { node, leaving } = stack.pop()!
    if (node.nodeType === TEXT_NODE) {
      const value = node.textContent ?? ''
      text += value
      if (linkDepth) linkChars += value.replace(/\s+/g, ' ').length
      continue
    }
    if (node.nodeType !== ELEMENT_NODE) continue
    const element = node as DomElement
    const name = element.localName
    if (leaving) {
      if (name === 'a') linkDepth--
      if (BREAKS.has(name)) {
        flush()
        if (containers.at(-1) === element) containers.pop()
      }
      continue
    }
    if (SKIP.has(name)) continue
    if (BREAKS.has(name)) {
      flush()
      if (name !== 'br' && name !== 'hr') containers.push(element)
    }
    if (name === 'a') linkDepth++
    stack.push({ node, leaving: true })
    pushChildren(stack, element)
  }
  flush()
  return blocks
}

/** Pushes the children of `node` so that the first is popped first. */
function pushChildren(stack: { node: DomNode; leaving: boolean }[], node: DomNode) {
  const start = stack.length
  for (let child = node.firstChild; child; child = child.nextSibling) stack.push({ node: child, leaving: false })
  // reverse the pushed range in place
  for (let low = start, high = stack.length - 1; low < high; low++, high--) [stack[low], stack[high]] = [stack[high]!, stack[low]!]
}
