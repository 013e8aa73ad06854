import type { FetchFormat, FindResult, QueryResult } from 'dsh-web'
import { findInPage } from './find-in-page.js'
import { HeadingPaths, outlineOf, readHeadings } from './page-outline.js'
import { type PageWindow, checkOffset, slicePage } from './paging.js'
import { RANKING_METHOD, rankPassages } from './rank-passages.js'

/** What a fetch returns of its snapshot: a part of the text, or what `find` or `query` made of the whole. */
export interface PageView {
  text: string
  offset: number
  nextOffset?: number
  totalChars: number
  /** True when the part shown is not the whole text. */
  truncated: boolean
  /** Which part is shown and where the next starts, when it is not the whole text. */
  partNote?: string
  find?: FindResult
  query?: QueryResult
}

/**
 * One call's view of a snapshot, the same for every provider: the part at
 * `offset`, or with `find` the places where the phrase occurs from `offset`
 * on, or with `query` the best passages and the outline. Offsets are those
 * of the snapshot's text, so a later read at a match's or a passage's
 * offset starts on it, with no second request.
 */
export function viewPage(text: string, format: FetchFormat, window: PageWindow): PageView {
  const { lens } = window
  if (!lens) {
    const page = slicePage(text, window)
    const view: PageView = { text: page.text, offset: page.offset, totalChars: page.totalChars, truncated: page.truncated }
    if (page.nextOffset !== undefined) {
      view.nextOffset = page.nextOffset
      view.partNote = `Characters ${page.offset} to ${page.nextOffset} of ${page.totalChars} are shown (maxChars ${window.maxChars}); call again with offset ${page.nextOffset} for the next part.`
    }
    return view
  }
  checkOffset(window.offset, text.length)
  const headings = readHeadings(text, format)
  const paths = new HeadingPaths(headings)
  const base = { text: '', offset: window.offset, totalChars: text.length, truncated: false }
  if (lens.find !== undefined) return { ...base, find: findInPage(text, lens.find, { from: window.offset, maxChars: window.maxChars, paths, markdown: format === 'markdown' }) }
  const ranked = rankPassages(text, lens.query, { maxChars: window.maxChars, paths })
  const { outline, total } = outlineOf(headings)
  return { ...base, query: { query: lens.query, terms: ranked.terms, method: RANKING_METHOD, blocks: ranked.blocks, matchingBlocks: ranked.matchingBlocks, passages: ranked.passages, outline, outlineTotal: total } }
}
