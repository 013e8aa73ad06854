import { type PageLens, type PageRange, WebError, readPageLens, readPageRange } from 'dsh-web'

export const DEFAULT_MAX_CHARS = 20_000
export const MAX_MAX_CHARS = 100_000

export interface PageWindow {
  offset: number
  maxChars: number
  /** A phrase to find or words to rank passages by, instead of the part of the text at `offset`. */
  lens?: PageLens
  /** The pages of a paged document (a PDF) the part, the matches or the passages stay within. */
  pages?: PageRange
}

/** Checks `offset`, `maxChars`, `find`, `query` and `pages` before anything is fetched. */
export function readPageWindow(request: { offset?: unknown; maxChars?: unknown; find?: unknown; query?: unknown; pages?: unknown }, maxMaxChars = MAX_MAX_CHARS): PageWindow {
  const maxChars = request.maxChars ?? DEFAULT_MAX_CHARS
  if (typeof maxChars !== 'number' || !Number.isInteger(maxChars) || maxChars < 1 || maxChars > maxMaxChars) {
    throw new WebError('INVALID_ARGUMENT', `maxChars must be a whole number from 1 to ${maxMaxChars}; got ${JSON.stringify(maxChars)}.`, {
      details: { argument: 'maxChars', limit: maxMaxChars },
    })
  }
  const offset = request.offset ?? 0
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw new WebError('INVALID_ARGUMENT', `offset must be a whole number of characters, 0 or more; got ${JSON.stringify(offset)}.`, {
      details: { argument: 'offset' },
    })
  }
  const lens = readPageLens({ offset, find: request.find as string | undefined, query: request.query as string | undefined })
  const pages = readPageRange(request.pages)
  const window: PageWindow = { offset, maxChars }
  if (lens) window.lens = lens
  if (pages) window.pages = pages
  return window
}

/** Refuses an offset past the end of a text of `totalChars` (0 is the start even of an empty one). */
export function checkOffset(offset: number, totalChars: number): void {
  if (offset > totalChars || (offset === totalChars && totalChars > 0)) {
    throw new WebError(
      'INVALID_ARGUMENT',
      `offset ${offset} is past the end of the document, which has ${totalChars} characters; use an offset from 0 to ${Math.max(0, totalChars - 1)}.`,
      { details: { argument: 'offset', limit: Math.max(0, totalChars - 1) } },
    )
  }
}

export interface Page {
  text: string
  offset: number
  nextOffset?: number
  totalChars: number
  truncated: boolean
}

/**
 * One page of the converted text, ending at `limit` at the latest (the end
 * of the pages asked for; `nextOffset` is then within them). Pages never
 * split a surrogate pair, so the pages joined in order give back the whole
 * text exactly.
 */
export function slicePage(text: string, window: PageWindow, limit = text.length): Page {
  const totalChars = text.length
  checkOffset(window.offset, totalChars)
  let end = Math.min(limit, window.offset + window.maxChars)
  if (end < totalChars && end > window.offset + 1) {
    const code = text.charCodeAt(end - 1)
    if (code >= 0xd800 && code <= 0xdbff) end--
  }
  const page: Page = { text: text.slice(window.offset, end), offset: window.offset, totalChars, truncated: end < totalChars }
  if (end < limit) page.nextOffset = end
  return page
}
