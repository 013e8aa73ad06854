import TurndownService from 'turndown'
import { gfm } from 'turndown-plugin-gfm'
import type { DomElement, DomNode } from './dom.js'

let service: TurndownService | undefined

function turndown(): TurndownService {
  if (service) return service
  service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
    strongDelimiter: '**',
    hr: '---',
  })
  service.use(gfm)
  // A form's controls go, never the form: pages wrap their content in one (a forum's thread in its moderation
  // form, an ASP.NET page in its one <form>), and the text renderer keeps what a form holds as well.
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'button', 'select', 'input', 'textarea'] as never)
  // "- item" rather than turndown's "-   item".
  service.addRule('listItem', {
    filter: 'li',
    replacement(content, node) {
      const element = node as unknown as { parentNode: { nodeName: string; getAttribute(name: string): string | null; children?: ArrayLike<unknown> } | null; nextSibling: unknown }
      const parent = element.parentNode
      let prefix = '- '
      if (parent && parent.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1') || 1
        const index = Array.prototype.indexOf.call(parent.children ?? [], node)
        prefix = `${start + Math.max(index, 0)}. `
      }
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, `\n${' '.repeat(prefix.length)}`)
      return prefix + body + (element.nextSibling && !/\n$/.test(body) ? '\n' : '')
    },
  })
  // An image without a source says nothing; one with a source keeps its alt text.
  service.addRule('image', {
    filter: 'img',
    replacement(_content, node) {
      const element = node as unknown as { getAttribute(name: string): string | null }
      const src = element.getAttribute('src')
      if (!src || src.startsWith('data:')) return ''
      const alt = (element.getAttribute('alt') ?? '').replace(/[\[\]\n]+/g, ' ').trim()
      return `![${alt}](${src.replace(/[()\s]/g, (c) => encodeURIComponent(c))})`
    },
  })
  return service
}

function tableRows(this: DomNode): DomNode[] {
  const rows: DomNode[] = []
  for (const child of Array.from(this.childNodes)) {
    const name = child.nodeName.toUpperCase()
    if (name === 'TR') rows.push(child)
    else if (name === 'THEAD' || name === 'TBODY' || name === 'TFOOT') {
      for (const row of Array.from(child.childNodes)) if (row.nodeName.toUpperCase() === 'TR') rows.push(row)
    }
  }
  return rows
}

/**
 * linkedom tables have no `rows`, which the GFM table rules read (on a clone
 * turndown makes), so the getter goes on the table element's prototype.
 */
function addTableRows(root: DomNode) {
  const element = root as DomElement
  if (typeof element.querySelectorAll !== 'function') return
  const table = element.localName === 'table' ? element : element.querySelector('table')
  if (!table || 'rows' in table) return
  Object.defineProperty(Object.getPrototypeOf(table), 'rows', { get: tableRows, configurable: true })
}

const BLOCK_IN_CELL = 'table, p, div, ul, ol, h1, h2, h3, h4, h5, h6, blockquote, pre, figure'

function directCells(row: DomNode): DomElement[] {
  return Array.from(row.childNodes).filter((cell) => /^T[DH]$/i.test(cell.nodeName)) as DomElement[]
}

/**
 * GFM can only hold simple tables. A layout table (cells holding blocks, or a
 * single column) becomes its cells' content, one block per cell; a data
 * table's first row is its header, in a <thead>, so that it becomes a GFM
 * table instead of raw HTML.
 */
function prepareTables(root: DomElement) {
  const tables = Array.from(root.querySelectorAll('table')).reverse()
  for (const table of tables) {
    const rows = tableRows.call(table)
    const width = Math.max(0, ...rows.map((row) => directCells(row).length))
    const layout = rows.length === 0 || width <= 1 || table.querySelector(BLOCK_IN_CELL) !== null
    const document = (table as unknown as { ownerDocument: { createElement(name: string): DomElement } }).ownerDocument
    if (layout) {
      const replacement = document.createElement('div')
      for (const row of rows) {
        for (const cell of directCells(row)) {
          const block = document.createElement('div')
          while (cell.firstChild) block.appendChild(cell.firstChild)
          replacement.appendChild(block)
        }
      }
      table.replaceWith(replacement)
      continue
    }
    // a caption becomes the paragraph above the table: GFM has none, and a line right above a table's rows reads as part of it
    for (const caption of Array.from(table.childNodes).filter((child) => child.nodeName.toUpperCase() === 'CAPTION')) {
      const paragraph = document.createElement('p')
      while (caption.firstChild) paragraph.appendChild(caption.firstChild)
      table.parentNode!.insertBefore(paragraph, table)
      caption.remove()
    }
    const first = rows[0]!
    const section = first.parentNode as DomElement
    if (section.nodeName.toUpperCase() === 'THEAD') continue
    for (const cell of directCells(first)) {
      if (cell.nodeName.toUpperCase() === 'TH') continue
      const heading = document.createElement('th')
      while (cell.firstChild) heading.appendChild(cell.firstChild)
      cell.replaceWith(heading)
    }
    // The GFM rules take a header row from a <thead>, or from a first row nothing precedes: after a <colgroup> or a <caption> the table stayed HTML.
    const head = document.createElement('thead')
    const inTable = section === table
    const before = inTable ? first : section
    before.parentNode!.insertBefore(head, before)
    head.appendChild(first)
    if (!inTable && !section.firstChild) section.remove()
  }
}

/** Markdown (GFM tables and strikethrough) of a DOM subtree. */
export function toMarkdown(root: DomNode): string {
  if (typeof (root as DomElement).querySelectorAll === 'function') prepareTables(root as DomElement)
  addTableRows(root)
  const markdown = turndown().turndown(root as never)
  return markdown.replace(/\n{3,}/g, '\n\n').trim()
}
