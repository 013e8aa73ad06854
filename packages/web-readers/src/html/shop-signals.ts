import { type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE } from './dom.js'
import { attributeOf, nextNode, textReaches } from './dom-walk.js'

/**
 * What a shop's page shows of selling, read off its structure, not its
 * declarations (page-type.ts reads those): the controls that put the
 * product in a basket, a price, the page's <h1>. Two uses:
 *
 * - a page that declares a product and sells nothing (no basket button, no
 *   price) is not a shop's product page: a service business or a piece of
 *   software that marks itself up as a Product (on WCXB dev, a pest-control
 *   firm's page whose customers' testimonials are its content);
 * - a page that declares nothing is judged one product's page by the same
 *   tests (page-structure.ts counts what isBuyControl and isPrice accept,
 *   page-type.ts judges).
 */

/**
 * A basket button's words: "Add to cart", "Add to bag", "Buy now" and
 * their French, German, Spanish, Italian and Dutch forms, anywhere in its
 * text (a button reads "Loading... Add to cart", or "Add to cart - $29.95").
 */
export const BUY = /\b(?:add to (?:cart|bag|basket|trolley|shopping (?:cart|bag))|buy (?:it )?now|in den warenkorb|ajouter au panier|añadir al carrito|aggiungi al carrello|in winkelwagen)\b/i
/** A control's text is short: a link or a button of more text is a card or a sentence that mentions buying. */
const MAX_BUY_CHARS = 60
/** Elements a reader presses. */
const CONTROLS = new Set(['button', 'input', 'a'])
/**
 * A price standing alone: a currency sign or code and an amount ("$29.95",
 * "£74.00", "59,99€", "EUR 20.99"), the whole text of an element, or an
 * element marked itemprop=price.
 */
const PRICE = /^(?:(?:[$€£¥₹]|[A-Z]{2}\s?\$|usd|eur|gbp|chf|aud|cad)\s?\d[\d.,\s]*|\d[\d.,\s]*\s?(?:[$€£¥₹]|usd|eur|gbp|chf|kr|zł|kč))$/i
const MAX_PRICE_CHARS = 20
/** Basket buttons looked at; a page of more is a category of products, each with its own. */
export const MAX_BUYS = 8
/** Never looked in: what a reader does not see. */
const UNSEEN = new Set(['script', 'style', 'template', 'noscript', 'svg', 'head'])

export interface ShopSignals {
  /** The first <h1>. */
  headline?: DomElement
  /** Basket buttons, in document order, at most MAX_BUYS + 1 (more than MAX_BUYS: a category's). */
  buys: DomElement[]
  /** The first price. */
  price?: DomElement
}

/** Whether `element` is a basket button: a control (or an element with role=button) whose text, or an <input>'s value, has BUY's words. */
export function isBuyControl(element: DomElement): boolean {
  const name = element.localName
  if (!CONTROLS.has(name) && attributeOf(element, 'role') !== 'button') return false
  if (name === 'input') {
    const value = attributeOf(element, 'value')
    return !!value && value.length <= MAX_BUY_CHARS && BUY.test(value)
  }
  if (textReaches(element, MAX_BUY_CHARS + 1)) return false
  return BUY.test((element.textContent ?? '').replace(/\s+/g, ' '))
}

/** Whether `element` is a price: marked itemprop=price, or its whole text a price (one text node). */
export function isPrice(element: DomElement): boolean {
  if (attributeOf(element, 'itemprop') === 'price') return true
  const only = element.firstChild
  if (!only || only.nextSibling || only.nodeType !== TEXT_NODE) return false
  const text = (only.textContent ?? '').trim()
  return text.length > 0 && text.length <= MAX_PRICE_CHARS && PRICE.test(text)
}

/**
 * The page's basket buttons, first <h1> and first price, in one walk of
 * `root` (what a reader does not see skipped); the walk stops once
 * MAX_BUYS + 1 buttons are found and the rest is known.
 */
export function readShopSignals(root: DomElement): ShopSignals {
  const signals: ShopSignals = { buys: [] }
  for (let node: DomNode | null = root.firstChild; node; ) {
    if (node.nodeType !== ELEMENT_NODE) {
      node = nextNode(node, root)
      continue
    }
    const element = node as DomElement
    if (UNSEEN.has(element.localName)) {
      node = nextNode(node, root, true)
      continue
    }
    if (!signals.headline && element.localName === 'h1') signals.headline = element
    if (!signals.price && isPrice(element)) signals.price = element
    if (isBuyControl(element)) {
      signals.buys.push(element)
      if (signals.buys.length > MAX_BUYS && signals.headline && signals.price) break
      // a button's inside is its label
      node = nextNode(node, root, true)
      continue
    }
    node = nextNode(node, root)
  }
  return signals
}

/** Whether the page sells something: a basket button or a price. */
export function sellsSomething(signals: ShopSignals): boolean {
  return signals.buys.length > 0 || signals.price !== undefined
}
