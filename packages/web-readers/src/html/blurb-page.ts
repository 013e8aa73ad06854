import type { DocumentMetadata } from 'dsh-web'
import type { DomElement } from './dom.js'
import { CHROME_TAGS, removeUnseen } from './dom-clean.js'
import { byTag, textReaches } from './dom-walk.js'
import { removeSiteNavigation } from './page-chrome.js'

/**
 * A listing or a category page read as its blurb: readability keeps the one
 * block of prose a page of cards has (the category's introduction, a
 * shipping promise, a newsletter line) and none of the cards, whose titles
 * are links and score low. On WCXB's development split such pages had
 * precision near 1 and recall 0.04-0.2: a recipe index read as its two
 * intro lines (0.31), a shop's category as its "free shipping" notice
 * (0.07), a blog's front page as its tagline. When the content chosen is
 * that short and holds no link while the page's main area (its <main>, else
 * its body, without the site's navigation, header, asides, footer, forms and
 * controls) holds far more text and a run of links, the main area is kept
 * instead (blurbArea).
 *
 * Two pages are not asked (isStoryOrProduct): a page that gives its
 * publication date is a story, not a page of cards (a paywalled news story
 * is read as its lead, and its page around it is headlines: without this
 * six ScrapingHub articles changed, 0.38-0.49 F1); a page that declares
 * itself one product (page-type.ts) is that product's, and its short
 * description is its content (without this a product's page 0.83 -> 0.43).
 *
 * Measured on WCXB dev (1,358 pages) and ScrapingHub (181 articles): WCXB
 * 0.8585 -> 0.8613, collection 0.667 -> 0.686, listing 0.699 -> 0.703,
 * service +0.005, product +0.001, article and forum +0.001; ten pages
 * better by 0.10-0.81 (4119 0.07 -> 0.81, 4636 0.31 -> 0.90, 0652 0.30 ->
 * 0.73), one worse (a job board whose reference is its intro alone, 1.00
 * -> 0.18); no ScrapingHub page's text changed. The gate reads sizes and
 * links, not the page type: the listings that gain are judged no type or
 * an article.
 */

/**
 * The gate's thresholds. Each was tried around its value with the others
 * fixed, on WCXB dev (sums of F1 over a type's pages, against today's):
 * - blurbChars: the chosen content is a blurb, under this many characters
 *   of text (500: collection +1.00 and listing +0.06 instead of +1.72 and
 *   +0.44; 1,000: collection +1.21, forum -0.48; 2,000: product -1.03);
 * - blurbLinks: a blurb holds at most this many links with text, a "read
 *   more" or a brand (0: listing -0.16, collection +1.17);
 * - areaLinks: the main area holds at least this many links with text of
 *   linkText characters or more: a page of cards, not a page of prose (5:
 *   the same pages; 20: one collection page fewer, +1.45);
 * - minGrowth: the area holds this many times the blurb's text at least,
 *   else the blurb is the page (1.5: the same; 3: collection +1.29);
 * - maxGrowth: and at most this many times: more is a whole site's worth,
 *   not a grid around a blurb (without it a forum's thread of 20,000
 *   characters beside its short first post, 1.00 -> 0.06).
 */
export const BLURB_GATE = { blurbChars: 700, blurbLinks: 1, areaLinks: 10, linkText: 3, minGrowth: 2, maxGrowth: 20 } as const

const collapsedLength = (element: DomElement) => (element.textContent ?? '').replace(/\s+/g, ' ').trim().length


/** Links with text below `root`, counted up to `limit`. */
function countLinks(root: DomElement, limit: number): number {
  const anchors = byTag(root, 'a')
  let count = 0
  for (let index = 0; index < anchors.length && count < limit; index++) {
    if (textReaches(anchors[index]!, BLURB_GATE.linkText)) count++
  }
  return count
}

/** The page's main area in `body` (a fresh reading of the page): its one <main> (or role=main), else the body, its chrome and controls removed. */
export function mainArea(body: DomElement): DomElement {
  const mains = byTag(body, 'main')
  const area = mains.length === 1 ? mains[0]! : ((body.querySelector('[role="main"]') as DomElement | null) ?? body)
  removeSiteNavigation(area)
  removeUnseen(area, CHROME_TAGS)
  return area
}

/** Whether the page gives its publication date, or declares itself one product. */
export function isStoryOrProduct(metadata: DocumentMetadata): boolean {
  return !!metadata.publishedTime || (metadata.pageType === 'product' && metadata.pageTypeFrom === 'declared')
}

/**
 * The page's main area, to keep instead of `chosen` when `chosen` is a
 * blurb of a page of cards, or undefined; `metadata` is the page's (its
 * publication date as readability or the page's metadata read it).
 * `readBody` reads the page afresh (readability has changed the document):
 * called only when `chosen` is a blurb, so an article's page is never read
 * twice.
 */
export function blurbArea(chosen: DomElement, metadata: DocumentMetadata, readBody: () => DomElement | undefined | null): DomElement | undefined {
  if (isStoryOrProduct(metadata)) return undefined
  const { blurbChars, blurbLinks, areaLinks, minGrowth, maxGrowth } = BLURB_GATE
  if (textReaches(chosen, blurbChars) || countLinks(chosen, blurbLinks + 1) > blurbLinks) return undefined
  const body = readBody()
  if (!body) return undefined
  const area = mainArea(body)
  const blurb = collapsedLength(chosen)
  const length = collapsedLength(area)
  if (length < minGrowth * blurb || length > maxGrowth * blurb || countLinks(area, areaLinks) < areaLinks) return undefined
  area.remove()
  return area
}
