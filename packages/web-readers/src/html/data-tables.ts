import { Readability } from '@mozilla/readability'
import type { DomElement } from './dom.js'
import { holdsOf } from './built-document.js'
import { attributeOf, descendants } from './dom-walk.js'

/**
 * Readability's first pass removes every element whose class or id has a
 * word of its `unlikelyCandidates` list (header, footer, menu, comment...)
 * unless it sits inside a table, and a table itself is not inside one: a
 * data table named `sticky-header` (what every sortable table on Wikipedia
 * is called, for the header row that stays in view) was removed whole, and
 * when the rest of the page is long enough that pass is the only one. A list
 * page read without its list: WCXB 2905, the Nobel laureates, kept the
 * introduction and lost the 19,000-character table (F1 0.32; bare
 * readability the same). Before readability reads the page, a data table
 * (DATA_ROWS rows or more and a header cell: not a layout table) loses the
 * class words that would name it unlikely; nothing else of it changes. WCXB
 * 2905 0.32 -> 0.87, no other page of either benchmark changed. The same
 * test keeps a data table whose cells are links out of prune-content.ts's
 * link lists (a table of names is not a menu; no benchmark page changed).
 */
const DATA_ROWS = 3
const UNLIKELY = (Readability.prototype as unknown as { REGEXPS: { unlikelyCandidates: RegExp } }).REGEXPS.unlikelyCandidates
if (!(UNLIKELY instanceof RegExp)) throw new Error('@mozilla/readability changed: no REGEXPS.unlikelyCandidates')

/** A table of data, not of layout: DATA_ROWS rows or more and a header cell. */
export function isDataTable(table: DomElement): boolean {
  let rows = 0
  let header = false
  for (const element of descendants(table, (element) => element.localName === 'tr' || element.localName === 'th')) {
    if (element.localName === 'tr') rows++
    else header = true
    if (header && rows >= DATA_ROWS) return true
  }
  return false
}

/** Takes the unlikely words off the class and id of the data tables below `body` (walked only when the source has a table); returns how many tables changed. */
export function keepDataTables(body: DomElement, source: string): number {
  if (!(holdsOf(body)?.table ?? /<table\b/i.test(source))) return 0
  let changed = 0
  for (const table of descendants(body, (element) => element.localName === 'table')) {
    let touched = false
    for (const attribute of ['class', 'id']) {
      const value = attributeOf(table, attribute)
      if (!value || !UNLIKELY.test(value)) continue
      const kept = value.split(/\s+/).filter((word) => word && !UNLIKELY.test(word))
      if (!touched && !isDataTable(table)) break
      touched = true
      if (kept.length) table.setAttribute(attribute, kept.join(' '))
      else table.removeAttribute(attribute)
    }
    if (touched) changed++
  }
  return changed
}
