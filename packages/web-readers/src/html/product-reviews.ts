import { attributeWords } from './boilerplate-words.js'
import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { hasDescendant, measureText, nextNode } from './dom-walk.js'
import { findTitledSections, within } from './titled-sections.js'

/**
 * A product's reviews and its customers' questions are what other people
 * say of it, not what the page says it is: on WCXB's development split the
 * annotators leave them out of nearly every product page (kept on 3 of the
 * 92), and where they follow the specifications the markup's container and
 * readability keep them (a backpack's page read as its specifications and
 * then 13,000 characters of reviews, 0.27). They go from the content chosen
 * on a product page (extract-html.ts), found two ways:
 *
 * - by their title (REVIEW_TITLE: "Reviews", "Customer reviews (212)",
 *   "Ratings & reviews", "Reviews for this item", "Questions & answers"),
 *   with the block the title opens (titled-sections.ts), up to
 *   MAX_SECTION_CHARS: reviews run long;
 * - by a class or id word, `review` or `reviews` (a widget's own markup,
 *   `reviews-widget`, `okeReviews`): reviews whose title is a count or a
 *   star rating. `ratings`, `rating`, `questions` and `testimonials` beside
 *   them changed nothing measured (`rating` names stars in a summary).
 *
 * Neither takes the first text of the content (a tab's label "Reviews (1)"
 * above the description, or a book's editorial "Reviews" that are the
 * content), and nothing goes when less than MIN_LEFT characters would be
 * left: then the chosen content is the reviews, readability having scored
 * them over a short description, and an empty page says less than they do.
 *
 * Only on a shop's product page (shop-signals.ts): one that declares a
 * product and sells something, or declares nothing and reads as one. On
 * every page that declares a product, a pest-control firm's page marked up
 * as a Product lost the customers' testimonials that are its content (0.95
 * -> 0.59); it sells nothing.
 *
 * Measured on WCXB dev's 92 product pages: by title alone +0.017, with the
 * class words +0.025, on a marketplace's page that declares nothing too
 * +0.029 (0.589 -> 0.617: a guitar 0.22 -> 0.92, a backpack 0.27 -> 0.86,
 * the marketplace's page 0.30 -> 0.64, two microphones 0.56 -> 0.86 and
 * 0.68 -> 0.81, a mug 0.56 -> 0.73); worse, a game's "Reviews" that are the
 * press's quotes, kept by the annotators (0.82 -> 0.77). Without MIN_LEFT a
 * shelf whose content readability took from its reviews read as nothing
 * (0.21 -> 0.01). No other page changes, on either benchmark.
 */

const REVIEW_TITLE = new RegExp(
  '^(?:' +
    [
      "(?:(?:customer|product|guest|user|verified|buyer|member|shopper)s?'? )?(?:reviews?|ratings? (?:&|and) reviews?|reviews? (?:&|and) ratings?)(?: (?:for|of|about) .{1,60})?",
      '\\d[\\d,.]* (?:customer |product )?reviews?',
      '(?:customer |product )?(?:questions? (?:&|and) answers?|q ?& ?a)(?: (?:for|about) .{1,60})?',
      'what (?:our )?customers (?:are saying|say)',
      'ask a question',
      'write a review',
    ].join('|') +
    ')\\s*(?:\\(\\d[\\d,.]*\\))?[?!.:]?$',
  'i',
)

/** Reviews run long (a backpack's: 13,000 characters); a block of more text than this is the page around them. */
const MAX_SECTION_CHARS = 50_000
/** Class and id words that name reviews. */
const REVIEW_WORDS = new Set(['review', 'reviews'])
/** What would be left, in characters, under which the content is the reviews and stays (the extraction's "nothing usable": MIN_MAIN_CHARS). */
const MIN_LEFT = 200
/** Never inside reviews: the page's headline or main area. */
const CONTENT = new Set(['h1', 'main'])

/** The outermost elements below `root`, after its first text, whose class or id names reviews. */
function namedReviews(root: DomElement): DomElement[] {
  const found: DomElement[] = []
  let seenText = false
  for (let node: DomNode | null = root.firstChild; node; ) {
    if (node.nodeType === TEXT_NODE && !seenText && (node.textContent ?? '').trim()) seenText = true
    else if (seenText && node.nodeType === ELEMENT_NODE && attributeWords(node as DomElement).some((word) => REVIEW_WORDS.has(word)) && !hasDescendant(node, CONTENT)) {
      found.push(node as DomElement)
      node = nextNode(node, root, true)
      continue
    }
    node = nextNode(node, root)
  }
  return found
}

/**
 * Removes a product's reviews and questions from `root`, the content
 * chosen on a product page, unless less than MIN_LEFT characters would be
 * left. Returns how many blocks went.
 */
export function removeReviews(root: DomElement): number {
  const measures = measureText(root)
  const titled = findTitledSections(root, (text) => REVIEW_TITLE.test(text), { maxChars: MAX_SECTION_CHARS, afterContent: true, measures })
  const chosen = new Set<DomNode>(titled)
  const blocks = [...titled]
  for (const element of namedReviews(root)) {
    if (within(element, chosen, root)) continue
    chosen.add(element)
    blocks.push(element)
  }
  if (!blocks.length) return 0
  // a titled section can hold a named block or sit inside one: count each text once
  let removed = 0
  for (const block of blocks) if (!within(block.parentNode!, chosen, root)) removed += measures.get(block)?.length ?? 0
  if (measures.get(root)!.length - removed < MIN_LEFT) return 0
  for (const block of blocks) block.remove()
  return blocks.length
}
