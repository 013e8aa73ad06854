import type { DomDocument, DomElement } from './dom.js'
import type { PageSignals } from '../outcome/page-signals.js'
import { SHORT_PAGE_WORDS } from '../outcome/page-signals.js'
import { byTag } from './dom-walk.js'

/** A <noscript>'s HTML read at most: a forum's crawler view of a long thread is a few hundred kilobytes. */
export const MAX_NOSCRIPT_CHARS = 2 * 1024 * 1024
/** The <noscript> is the page when it holds at least this many words more than everything outside it. */
const MIN_NOSCRIPT_WORDS = 100


const words = (html: string) => html.replace(/<[^>]*>/g, ' ').match(/[\p{L}\p{N}]+/gu)?.length ?? 0

/**
 * The page a reader without JavaScript sees, when that is the page: some
 * sites (Discourse's forums among them) put the whole content in a
 * <noscript> for readers and crawlers that run no scripts, and leave the
 * rest of the body to the app. The tree holds a <noscript>'s content as
 * its text, unparsed (the HTML standard's parsing with scripting on), and
 * extraction leaves it out as unseen; so when the body outside every
 * <noscript> shows fewer than SHORT_PAGE_WORDS words and the largest
 * <noscript> (MAX_NOSCRIPT_CHARS at most) holds MIN_NOSCRIPT_WORDS more,
 * its HTML, to be parsed as the page's body. A page that shows its content
 * and a "turn JavaScript on" notice is not one of these.
 */
export function noscriptView(document: DomDocument, signals: PageSignals): string | undefined {
  if (signals.visibleWords >= SHORT_PAGE_WORDS || !document.body) return undefined
  let largest = ''
  for (const element of Array.from(byTag(document, 'noscript'))) {
    const html = element.textContent ?? ''
    if (html.length > largest.length && html.length <= MAX_NOSCRIPT_CHARS) largest = html
  }
  if (!largest || words(largest) < signals.visibleWords + MIN_NOSCRIPT_WORDS) return undefined
  return largest
}
