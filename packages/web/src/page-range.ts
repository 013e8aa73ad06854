import { WebError } from './errors.js'
import type { FetchedDocument } from './types.js'

/** The pages a fetch may ask for: one page or a range, counted from 1, e.g. "5" or "3-5". */
const PAGES_PATTERN = '^\\s*[1-9][0-9]{0,5}\\s*(-\\s*[1-9][0-9]{0,5}\\s*)?$'

/** Pages of a paged document, counted from 1, `first` to `last` inclusive. */
export interface PageRange {
  first: number
  last: number
}

/**
 * Checks `pages` before anything is fetched: one page ("5") or a range
 * ("3-5") of pages counted from 1, the first not after the last. Whether the
 * document has those pages is known only once it is read (the readers check
 * that). Undefined when the request has none.
 */
export function readPageRange(pages: unknown): PageRange | undefined {
  if (pages === undefined) return undefined
  const match = typeof pages === 'string' ? new RegExp(PAGES_PATTERN).exec(pages) : null
  if (!match) {
    throw new WebError('INVALID_ARGUMENT', `pages must be one page or a range of pages counted from 1, e.g. "5" or "3-5"; got ${JSON.stringify(pages)}.`, {
      details: { argument: 'pages' },
    })
  }
  const [first, last = first] = (pages as string).split('-').map((part) => Number(part.trim()))
  if (first > last) {
    throw new WebError('INVALID_ARGUMENT', `pages ${JSON.stringify(pages)} ends before it starts; write the lower page first, e.g. "${last}-${first}".`, {
      details: { argument: 'pages' },
    })
  }
  return { first, last }
}

/**
 * A provider's answer to a fetch with `pages`: a paged document must say
 * which pages it holds of those asked for (one that ignored them would hand
 * back other pages as if they were the ones asked for); a document without
 * pages is read whole, and its warnings say so.
 */
export function checkPagesAnswered(range: PageRange | undefined, document: FetchedDocument, providerId: string): FetchedDocument {
  if (!range) return document
  if (document.pages) {
    if (document.pages.requested) return document
    throw new WebError('WEB_PROVIDER_BAD_RESPONSE', `The fetch provider "${providerId}" does not implement pages: its answer holds a paged document but not the pages asked for. Fetch without pages and read the document by offset, or use a fetch provider that implements it (http).`, {
      details: { providerId, argument: 'pages' },
    })
  }
  const what = document.metadata.sourceFormat ?? 'html'
  const asked = range.first === range.last ? `${range.first}` : `${range.first}-${range.last}`
  return { ...document, warnings: [...document.warnings, `pages "${asked}" was asked for, but this document (read as ${what}) has no pages, only PDFs do; it is read whole, by offset.`] }
}
