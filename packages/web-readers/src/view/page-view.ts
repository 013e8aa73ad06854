import { type FetchFormat, type FindResult, type PagesShown, type QueryResult, WebError } from 'dsh-web'
import { findInPage } from './find-in-page.js'
import { HeadingPaths, outlineOf, readHeadings } from './page-outline.js'
import { type PageSpan, pageSpan, pagesShown } from './paged-text.js'
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
  /** Of a paged document: the pages shown, and those asked for. */
  pages?: PagesShown
  /** What the result says of the window itself (pages asked for past the last one, or of a document without pages). */
  warnings: string[]
}

/**
 * One call's view of a snapshot, the same for every provider: the part at
 * `offset`, or with `find` the places where the phrase occurs from `offset`
 * on, or with `query` the best passages and the outline; with `pages` (of a
 * paged document, whose page markers start at `pageStarts`), within those
 * pages. Offsets are those of the snapshot's whole text, so a later read at
 * a match's or a passage's offset starts on it, with no second request.
 */
export function viewPage(text: string, format: FetchFormat, window: PageWindow, pageStarts?: number[]): PageView {
  const paged = pageStarts?.length ? pageStarts : undefined
  const span = window.pages && paged ? pageSpan(paged, text.length, window.pages) : undefined
  const offset = span ? startWithin(span, window.offset) : window.offset
  const view = lensView(text, format, { ...window, offset }, span)
  if (span?.note) view.warnings.push(span.note)
  if (paged) view.pages = shownPages(paged, view, span)
  return view
}

/** With pages, offset 0 (the default) is the first page's start; any other offset must lie within the pages. */
function startWithin(span: PageSpan, offset: number): number {
  if (offset === 0) return span.start
  if (offset >= span.start && offset < span.end) return offset
  const pages = span.first === span.last ? `page ${span.first}` : `pages ${span.first}-${span.last}`
  throw new WebError('INVALID_ARGUMENT', `offset ${offset} is outside ${pages}, which hold characters ${span.start} to ${span.end}; give an offset within them, or leave pages out to read from any offset.`, {
    details: { argument: 'offset' },
  })
}

function lensView(text: string, format: FetchFormat, window: PageWindow, span: PageSpan | undefined): PageView {
  const { lens } = window
  if (!lens) {
    const page = slicePage(text, window, span?.end)
    const view: PageView = { text: page.text, offset: page.offset, totalChars: page.totalChars, truncated: page.truncated, warnings: [] }
    if (page.nextOffset !== undefined) {
      view.nextOffset = page.nextOffset
      view.partNote = span
        ? `Characters ${page.offset} to ${page.nextOffset} of ${span.first === span.last ? `page ${span.first}` : `pages ${span.first}-${span.last}`} (characters ${span.start} to ${span.end} of ${page.totalChars}) are shown (maxChars ${window.maxChars}); call again with the same pages and offset ${page.nextOffset} for the next part.`
        : `Characters ${page.offset} to ${page.nextOffset} of ${page.totalChars} are shown (maxChars ${window.maxChars}); call again with offset ${page.nextOffset} for the next part.`
    }
    return view
  }
  checkOffset(window.offset, text.length)
  const headings = readHeadings(text, format)
  const paths = new HeadingPaths(headings)
  const base = { text: '', offset: window.offset, totalChars: text.length, truncated: false, warnings: [] }
  if (lens.find !== undefined) return { ...base, find: findInPage(text, lens.find, { from: window.offset, to: span?.end, maxChars: window.maxChars, paths, markdown: format === 'markdown' }) }
  const ranked = rankPassages(text, lens.query, { maxChars: window.maxChars, paths, within: span })
  const { outline, total } = outlineOf(headings)
  return { ...base, query: { query: lens.query, terms: ranked.terms, method: RANKING_METHOD, blocks: ranked.blocks, matchingBlocks: ranked.matchingBlocks, passages: ranked.passages, outline, outlineTotal: total } }
}

/** The pages the part, the matches or the passages lie on; with none shown, the pages searched. */
function shownPages(pageStarts: number[], view: PageView, span: PageSpan | undefined): PagesShown {
  const places = view.find ? view.find.matches.map((match) => [match.offset, match.offset + match.length]) : view.query ? view.query.passages.map((passage) => [passage.offset, passage.offset + passage.text.length]) : [[view.offset, view.offset + view.text.length]]
  if (!places.length || (view.find === undefined && view.query === undefined && !view.text)) {
    return pagesShown(pageStarts, span?.start ?? 0, span?.end ?? view.totalChars, span)
  }
  return pagesShown(pageStarts, Math.min(...places.map(([start]) => start)), Math.max(...places.map(([, end]) => end)), span)
}
