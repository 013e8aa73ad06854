import type { DomElement } from './dom.js'
import { removeTitledSections } from './titled-sections.js'

/**
 * A store's suggestions of other things to buy: "You may also like",
 * "Similar items", "Frequently bought together", "Complete the look". Their
 * cards are other products' names, prices and links, never the product's:
 * on WCXB's development split a product page read as its jacket and then as
 * forty other jackets, and a listing as a carousel of "Recently viewed".
 * readability drops most of them by their class names; the markup's
 * container, the product's block and a list of items keep them. What goes
 * is the block the title opens (removeSuggestions), on whichever content was
 * chosen (extract-html.ts).
 *
 * A heading is such a title when its whole text is one of these phrases
 * (English: the stores of both benchmarks; a title in another language is
 * left alone). "Featured products", "Seller's other items", "More from this
 * brand" and "Sponsored products" added: WCXB dev products +0.0019 (a tool
 * shop's pages 0.64 -> 0.67, 0.75 -> 0.79, 0.87 -> 0.89; a parts shop's 0.78
 * -> 0.84), one listing +0.01, no page worse, no article changed.
 */
const SUGGESTION_TITLE = new RegExp(
  '^(?:' +
    [
      'you (?:may|might) also (?:like|love|enjoy|be interested in)',
      'you may also need',
      'customers (?:who (?:bought|viewed) this (?:item|product) )?also (?:bought|viewed|liked|purchased|loved)',
      'people also (?:bought|viewed)',
      'related (?:products|items)',
      'recently viewed(?: items| products)?',
      'similar (?:items|products|styles)',
      'more like this',
      'how about these',
      'frequently bought together',
      '(?:complete|shop) the look',
      'recommended for you',
      'pairs well with',
      'featured products',
      "seller's other items",
      'more from this (?:seller|brand|shop|store)',
      'sponsored (?:products|items)',
    ].join('|') +
    ')[?!.:]?$',
  'i',
)

/** A section of suggestions is not long: a block of more text is the page around it. */
const MAX_SECTION_CHARS = 10_000

/**
 * Removes each section of suggestions below `root`: its title and the
 * largest block the title opens (titled-sections.ts), under
 * MAX_SECTION_CHARS. Tried first, and measured on WCXB dev: the largest
 * block that is mostly links beside the title, which kept most stores'
 * cards (a price, "Select your size" and a quantity box are not links):
 * product +0.0002; the block the title opens, +0.011, no page worse.
 * Returns how many sections went.
 */
export function removeSuggestions(root: DomElement): number {
  return removeTitledSections(root, (text) => SUGGESTION_TITLE.test(text), { maxChars: MAX_SECTION_CHARS })
}
