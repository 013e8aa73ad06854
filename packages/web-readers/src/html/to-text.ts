import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'

const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section',
  'summary', 'table', 'ul', 'caption', 'center', 'html',
])
/** Elements that end a line but not a paragraph. */
const LINE = new Set(['li', 'tr', 'dt', 'dd', 'option'])
const CELL_SEPARATOR = '\u0000'
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg', 'iframe', 'object', 'button', 'select', 'input', 'textarea'])

/**
 * Plain text of a DOM subtree: block elements become paragraphs separated by
 * a blank line, `<br>` a line break, list items get a dash, table cells a tab;
 * runs of white space inside a paragraph collapse to one space.
 */
export function toPlainText(root: DomNode): string {
  const blocks: string[] = []
  let line = ''
  let lines: string[] = []
  // A list item's dash waits for the item's first line, which may be in a block inside it.
  let dash = false
  const endLine = () => {
    const trimmed = line.replace(/[ \t\f\v\r\n]+/g, ' ').trim().replace(/ ?\u0000 ?/g, '\t')
    if (trimmed) {
      lines.push(dash ? `- ${trimmed}` : trimmed)
      dash = false
    }
    line = ''
  }
  const endBlock = () => {
    endLine()
    if (lines.length) blocks.push(lines.join('\n'))
    lines = []
  }
  const walk = (node: DomNode, inPre: boolean) => {
    if (node.nodeType === TEXT_NODE) {
      const text = node.textContent ?? ''
      if (inPre) {
        const parts = text.split('\n')
        parts.forEach((part, index) => {
          if (index > 0) {
            lines.push(line.replace(/\s+$/, ''))
            line = ''
          }
          line += part
        })
      } else line += text
      return
    }
    if (node.nodeType !== ELEMENT_NODE) return
    const name = (node as DomElement).localName ?? node.nodeName.toLowerCase()
    if (SKIP.has(name)) return
    if (name === 'br') {
      if (inPre) {
        lines.push(line)
        line = ''
      } else endLine()
      return
    }
    if (name === 'img') {
      return
    }
    const block = BLOCK.has(name) && !LINE.has(name)
    const lineLevel = LINE.has(name)
    if (block) endBlock()
    else if (lineLevel) endLine()
    if (name === 'li') dash = true
    if ((name === 'td' || name === 'th') && line.trim()) line += CELL_SEPARATOR
    const pre = inPre || name === 'pre'
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child, pre)
    if (block) endBlock()
    else if (lineLevel) endLine()
    else if (name === 'td' || name === 'th') line += ' '
  }
  walk(root, false)
  endBlock()
  return blocks.join('\n\n')
}
