import { type DefaultTreeAdapterTypes, parse } from 'parse5'
import type { DomDocument, DomElement, DomNode } from '../src/html/dom.js'

/**
 * The tree the HTML standard prescribes, by parse5 alone (its default tree
 * adapter), as a list of lines ("<tag a=b>", "text", "</tag>") to compare
 * with the tree extraction reads. Leaves out what that tree leaves out on
 * purpose: comments, scripts (but JSON-LD), styles, SVG, template contents,
 * and white space between two blocks.
 */
type P5Node = DefaultTreeAdapterTypes.ChildNode | DefaultTreeAdapterTypes.Document

const BLOCKS = new Set([
  'address', 'article', 'aside', 'base', 'blockquote', 'body', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hgroup', 'hr', 'html', 'li', 'link', 'main', 'meta',
  'nav', 'noscript', 'ol', 'option', 'p', 'section', 'select', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'title', 'tr',
  'ul', 'caption', 'colgroup', 'col', 'script', 'style', 'template',
])

function leftOut(node: P5Node): boolean {
  if (node.nodeName === '#comment' || node.nodeName === '#documentType') return true
  if (!('tagName' in node)) return false
  if (node.namespaceURI === 'http://www.w3.org/2000/svg' || node.tagName === 'style') return true
  return node.tagName === 'script' && !node.attrs.some((a) => a.name === 'type' && /application\/ld\+json/i.test(a.value))
}

/** linkedom reads a class attribute back as its class list (tokens deduplicated, one space apart). */
const attributeValue = (name: string, value: string) => (name === 'class' ? [...new Set(value.split(/\s+/).filter(Boolean))].join(' ') : value)

function isBlock(node: P5Node | undefined): boolean {
  return !!node && 'tagName' in node && BLOCKS.has(node.tagName)
}

export function standardTree(html: string): string[] {
  const lines: string[] = []
  const walk = (node: P5Node) => {
    const children = ('childNodes' in node ? node.childNodes : []).filter((child) => !leftOut(child)) as P5Node[]
    // adjacent text nodes once what stood between them is left out
    const merged: P5Node[] = []
    for (const child of children) {
      const last = merged.at(-1)
      if (last && last.nodeName === '#text' && child.nodeName === '#text') merged[merged.length - 1] = { ...last, value: (last as DefaultTreeAdapterTypes.TextNode).value + (child as DefaultTreeAdapterTypes.TextNode).value } as P5Node
      else merged.push(child)
    }
    merged.forEach((child, index) => {
      if (child.nodeName === '#text') {
        const value = (child as DefaultTreeAdapterTypes.TextNode).value
        const after = merged[index + 1]
        if (/^[ \t\n\f\r]*$/.test(value) && isBlock(merged[index - 1] ?? node) && (!after || isBlock(after))) return
        lines.push(JSON.stringify(value))
        return
      }
      const element = child as DefaultTreeAdapterTypes.Element
      lines.push(`<${element.tagName}${element.attrs.map((a) => ` ${a.prefix ? `${a.prefix}:` : ''}${a.name}=${JSON.stringify(attributeValue(a.name, a.value))}`).join('')}>`)
      if (element.tagName !== 'template') walk(element)
      lines.push(`</${element.tagName}>`)
    })
  }
  walk(parse(html, { scriptingEnabled: true }))
  return lines
}

/** The same lines for a document extraction reads. */
export function treeLines(document: DomDocument): string[] {
  const lines: string[] = []
  const walk = (node: DomNode) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) lines.push(JSON.stringify(child.textContent))
      if (child.nodeType !== 1) continue
      const element = child as DomElement & { getAttributeNames(): string[] }
      lines.push(`<${element.localName}${element.getAttributeNames().map((name) => ` ${name}=${JSON.stringify(attributeValue(name, element.getAttribute(name) ?? ''))}`).join('')}>`)
      walk(element)
      lines.push(`</${element.localName}>`)
    }
  }
  walk(document)
  return lines
}

const NOT_RENDERED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'title', 'head'])

/**
 * The text a browser shows for a page, by parse5 alone: the body's text
 * content without scripts, styles, noscript, templates and SVG.
 */
export function visibleText(html: string): string {
  const document = parse(html, { scriptingEnabled: true })
  const root = document.childNodes.find((node) => node.nodeName === 'html') as DefaultTreeAdapterTypes.Element
  const body = root.childNodes.find((node) => node.nodeName === 'body') as DefaultTreeAdapterTypes.Element
  let text = ''
  const walk = (node: DefaultTreeAdapterTypes.ParentNode) => {
    for (const child of node.childNodes) {
      if (child.nodeName === '#text') text += (child as DefaultTreeAdapterTypes.TextNode).value
      else if ('tagName' in child && !NOT_RENDERED.has(child.tagName)) walk(child)
    }
  }
  walk(body)
  return text
}

/** The text of every element with this tag, by parse5 alone, in document order. */
export function textsOf(html: string, tagName: string): string[] {
  const texts: string[] = []
  const textOf = (node: DefaultTreeAdapterTypes.ParentNode): string =>
    node.childNodes.map((child) => (child.nodeName === '#text' ? (child as DefaultTreeAdapterTypes.TextNode).value : 'childNodes' in child ? textOf(child) : '')).join('')
  const walk = (node: DefaultTreeAdapterTypes.ParentNode) => {
    for (const child of node.childNodes) {
      if (!('tagName' in child)) continue
      if (child.tagName === tagName) texts.push(textOf(child))
      walk(child)
    }
  }
  walk(parse(html, { scriptingEnabled: true }))
  return texts
}
