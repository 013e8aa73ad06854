import type { DomElement, DomNode } from './dom.js'
import { ELEMENT_NODE } from './dom.js'

/**
 * A shop's currency plugin prints, beside each price of a product, the same
 * price in a dozen currencies: a list of "AED: 549.56AED", "GBP: $110.82",
 * "AUD: $232.60", shown on hover. A reader sees one price; the annotators of
 * WCXB keep that one and leave the conversions out. On a shop's product page
 * (shop-signals.ts), a list of three items or more, each a currency's code and
 * an amount and nothing else, goes from the content. A list of a product's
 * sizes or variants with their prices names them in words and stays.
 *
 * Measured on WCXB dev's 92 product pages: a jeweller's necklace, its price
 * converted twice into eleven currencies, 0.62 -> 0.79 (products +0.0018),
 * no other page changed.
 */

/** A currency's code and an amount, with the symbol or code the plugin prints around it: "GBP: $110.82", "AED 549.56AED". */
const CONVERSION = /^[A-Z]{3}\s*:?\s*(?:[^\s\w]{1,3}|[A-Z]{1,3})?\s*\d[\d.,' ]*\s*(?:[^\s\w]{1,3}|[A-Z]{1,3})?$/u
/** Items a list must hold before it is judged. */
const MIN_ITEMS = 3
/** Lists looked at, at most; those past it are left as they are. */
export const MAX_LISTS = 5_000
/** Items of one list looked at, at most: a longer list is not a currency menu. */
const MAX_ITEMS = 400

/** Whether each element child of the list is an item holding a currency's code and an amount. */
function isConversionList(list: DomElement): boolean {
  let items = 0
  for (let child: DomNode | null = list.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== ELEMENT_NODE) {
      if ((child.textContent ?? '').trim()) return false
      continue
    }
    if ((child as DomElement).localName !== 'li' || ++items > MAX_ITEMS) return false
    if (!CONVERSION.test((child.textContent ?? '').replace(/\s+/g, ' ').trim())) return false
  }
  return items >= MIN_ITEMS
}

/** Removes from `root` (the content chosen on a shop's product page) each list of a price in other currencies; returns how many went. */
export function removePriceConversions(root: DomElement): number {
  const lists = Array.from(root.querySelectorAll('ul, ol')).slice(0, MAX_LISTS)
  const conversions = lists.filter(isConversionList)
  for (const list of conversions) list.remove()
  return conversions.length
}
