import { parseHTML } from 'linkedom'
import type { DomDocument } from './dom.js'

/** Tags whose boxes are blocks (or invisible): white space between two of them never renders. */
const BLOCK_TAGS = 'address|article|aside|base|blockquote|body|dd|details|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|head|header|hr|html|li|link|main|meta|nav|noscript|ol|option|p|section|select|summary|table|tbody|td|tfoot|th|thead|title|tr|ul'
const INERT = /<!--[\s\S]*?-->|<(style|template|svg|script)\b([^>]*)>[\s\S]*?<\/\1\s*>/gi
const BETWEEN_BLOCKS = new RegExp(`(<\\/?(?:${BLOCK_TAGS})\\b[^>]*>)\\s+(?=<\\/?(?:${BLOCK_TAGS})\\b)`, 'gi')

/**
 * Removes scripts (but JSON-LD metadata, which readability reads), styles,
 * templates, inline SVG and comments before parsing: they never reach the
 * output, and large inline CSS, JS or SVG is most of the parse time on many
 * pages. (Stripping form controls and iframes the same way cost 0.006 F1:
 * unclosed tags take real text with them.) Also drops the white space between
 * two block tags, which never renders but is about a third of a page's nodes.
 */
export function stripInertElements(html: string): string {
  return html
    .replace(INERT, (match, tag: string | undefined, attributes: string | undefined) =>
      tag?.toLowerCase() === 'script' && /application\/ld\+json/i.test(attributes ?? '') ? match : '',
    )
    .replace(BETWEEN_BLOCKS, '$1')
}

/** Parses HTML to a document: linkedom in production, jsdom in bench/extract-dom.ts for comparison. */
export interface HtmlParser {
  name: string
  parse(html: string, url: string): DomDocument
}

export const linkedomParser: HtmlParser = {
  name: 'linkedom',
  parse(html: string) {
    let { document } = parseHTML(html) as unknown as { document: DomDocument }
    // linkedom makes the first element of a fragment the document element; give it a body.
    if (!document.body || document.documentElement?.localName !== 'html') {
      ;({ document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`) as unknown as { document: DomDocument })
    }
    return document
  },
}
