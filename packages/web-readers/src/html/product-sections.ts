import type { DomDocument, DomElement } from './dom.js'
import { removeUnseen } from './dom-clean.js'
import { measureText } from './dom-walk.js'
import { removeReviews } from './product-reviews.js'
import { removeSuggestions } from './recommendations.js'
import { findTitledSections } from './titled-sections.js'

/**
 * A product's own sections, by their titles: "Description", "Product
 * details", "Specifications", "Features", "About this item", "What's in the
 * box", "Dimensions". Where a store's layout leaves readability nothing it
 * scores as prose, readability keeps a block elsewhere on the page (a price
 * feedback form, a short summary) and the product's block cannot be found
 * or adds too little (product-block.ts); the sections the store titled are
 * the product as the annotators read it. On a shop's product page
 * (shop-signals.ts), when the product's block is not taken, the sections of
 * the page as it was before readability, each the block its title opens
 * (titled-sections.ts), in the page's order, with the store's suggestions
 * and the product's reviews gone from them (recommendations.ts,
 * product-reviews.ts), replace the content when they hold at least
 * MIN_GAIN times its text.
 *
 * Measured on WCXB dev's 92 product pages, after the page of sections
 * (sectioned-page.ts) had taken some of them: +0.006 (3072 0.53 -> 0.78,
 * 3076 0.68 -> 0.83, 0593 0.76 -> 0.90), no page worse; no page of another
 * type changed, nor any ScrapingHub page.
 */

const SECTION_TITLE = new RegExp(
  '^(?:' +
    [
      '(?:(?:product|item) )?(?:description|details|specifications?|specs|features|information|info|overview)',
      '(?:technical|tech) (?:specifications?|specs|details)',
      'key features',
      'features (?:&|and) benefits',
      'about (?:this|the) (?:item|product)',
      "what'?s (?:in the box|included)",
      'in the box',
      'dimensions',
      'materials?(?: (?:&|and) care)?',
      'ingredients',
    ].join('|') +
    ')[:.]?$',
  'i',
)

/** A section is not long: a block of more text is the page around it. */
const MAX_SECTION_CHARS = 20_000
/**
 * The sections replace the content when they hold this many times its text:
 * the content is then a part of the product, or a block beside it. From 1.2
 * to 2, the same four pages; 2.5 and 3 left out a game's page whose
 * sections hold 2.3 times its content (0.68 -> 0.83).
 */
export const MIN_GAIN = 2

/**
 * The product's sections as one block, taken out of `intact` (a copy of the
 * page's body from before readability, which is cleaned of what is never
 * shown here), or undefined when there are none or they hold less than
 * MIN_GAIN times `content`'s text. `document` makes the block.
 */
export function productSections(intact: DomElement, content: DomElement, document: DomDocument): DomElement | undefined {
  removeUnseen(intact)
  const sections = findTitledSections(intact, (text) => SECTION_TITLE.test(text), { maxChars: MAX_SECTION_CHARS })
  if (!sections.length) return undefined
  const block = document.createElement('div')
  for (const section of sections) block.appendChild(section)
  removeSuggestions(block)
  removeReviews(block)
  const contentLength = measureText(content).get(content)!.length
  return measureText(block).get(block)!.length >= MIN_GAIN * contentLength ? block : undefined
}
