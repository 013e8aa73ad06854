import { type PageRange, type PagesShown, WebError } from 'dsh-web'
import { lastAtOrBefore } from './find-in-page.js'

/** Characters `start` to `end` of a paged text: the span of the pages asked for. */
export interface PageSpan extends PageRange {
  start: number
  end: number
  /** Said in the result when the range asked for ran past the document's last page. */
  note?: string
}

const named = (range: PageRange) => (range.first === range.last ? `page ${range.first}` : `pages ${range.first}-${range.last}`)

/**
 * Where the pages asked for lie in a paged text whose page markers start at
 * `pageStarts` (page 1 first, the parts joined by a blank line). A range
 * that runs past the last page is read to the last and says so; one that
 * starts past it is refused, naming how many pages there are.
 */
export function pageSpan(pageStarts: number[], textLength: number, range: PageRange): PageSpan {
  const pageCount = pageStarts.length
  if (range.first > pageCount) {
    throw new WebError('INVALID_ARGUMENT', `pages asks for ${named(range)}, but the document has ${pageCount} page${pageCount === 1 ? '' : 's'}; ask for pages from 1 to ${pageCount}.`, {
      details: { argument: 'pages', limit: pageCount },
    })
  }
  const last = Math.min(range.last, pageCount)
  const span: PageSpan = { first: range.first, last, start: pageStarts[range.first - 1], end: last < pageCount ? pageStarts[last] - 2 : textLength }
  if (last < range.last) span.note = `${named(range)} were asked for; the document has ${pageCount} pages, so ${named({ first: range.first, last })} are read.`
  return span
}

/** The page (from 1) the character at `offset` lies on: the last whose marker starts at or before it (the outline before page 1 counts as page 1). */
export function pageAt(pageStarts: number[], offset: number): number {
  return lastAtOrBefore(pageStarts, offset) + 1
}

/** Which pages characters `start` to `end` (exclusive) of a paged text touch, and the span asked for if any. */
export function pagesShown(pageStarts: number[], start: number, end: number, span?: PageSpan): PagesShown {
  const shown: PagesShown = { pageCount: pageStarts.length, first: pageAt(pageStarts, start), last: pageAt(pageStarts, Math.max(start, end - 1)) }
  if (span) shown.requested = { first: span.first, last: span.last, start: span.start, end: span.end }
  return shown
}
