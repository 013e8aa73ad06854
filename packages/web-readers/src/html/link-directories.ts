import type { DomElement, DomNode } from './dom.js'
import { ELEMENT_NODE } from './dom.js'

/**
 * A large shop closes each product's page with directories for search
 * engines: "More Brands" (adidas, ASICS, Calvin Klein, ...), "More
 * Inspiration" (Backpacks, Bomber Jackets, Dresses, ...), each a long list
 * whose every item is one short link to a category. They describe the shop,
 * not the product, and the annotators of WCXB leave them out. On a shop's
 * product page (shop-signals.ts), a list of twelve items or more, each item
 * one link of four words at most and nothing beside it, goes from the
 * content, with the heading that names it when the two stand alone in their
 * block. A product's list of features or contents is written in words, not
 * links, and stays; so does a short list of links (a product's colours).
 *
 * Measured on WCXB dev's 92 product pages: a fashion shop's jacket, 55
 * links to brands and categories beside 150 words of product, 0.38 -> 0.51
 * (products +0.0014), no page worse. From six items: the same, and 0.01 on
 * a sock shop's page; twelve is kept to spare short lists.
 */

/** Items a list must hold before it is judged. */
const MIN_ITEMS = 12
/** Words an item's link may hold. */
const MAX_WORDS = 4
/** Lists looked at, at most; those past it are left as they are. */
export const MAX_LISTS = 5_000
/** Items of one list looked at, at most. */
const MAX_ITEMS = 2_000
const HEADINGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6'])

function words(text: string | null): string[] {
  return (text ?? '').trim().split(/\s+/).filter(Boolean)
}

/** The element children of `parent`, or undefined when a text child holds words or there are more than `limit`. */
function elementChildren(parent: DomNode, limit: number): DomElement[] | undefined {
  const children: DomElement[] = []
  for (let child: DomNode | null = parent.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === ELEMENT_NODE) {
      if (children.push(child as DomElement) > limit) return undefined
    } else if ((child.textContent ?? '').trim()) return undefined
  }
  return children
}

/** Whether `item` holds one link and nothing else, of at most MAX_WORDS words. */
function isShortLink(item: DomElement): boolean {
  if (item.localName !== 'li') return false
  const text = words(item.textContent)
  if (text.length === 0 || text.length > MAX_WORDS) return false
  const links = item.querySelectorAll('a')
  return links.length === 1 && words(links[0]!.textContent).length === text.length
}

function isDirectory(list: DomElement): boolean {
  const items = elementChildren(list, MAX_ITEMS)
  return !!items && items.length >= MIN_ITEMS && items.every(isShortLink)
}

/** The block to remove for `list`: the list, or its parent when the parent holds only a heading and the list (each maybe wrapped once). */
function directoryBlock(list: DomElement, root: DomElement): DomElement {
  let block: DomElement = list
  for (let depth = 0; depth < 3 && block.parentNode && block.parentNode !== root; depth++) {
    const parent = block.parentNode as DomElement
    const children = elementChildren(parent, 3)
    if (!children) break
    const others = children.filter((child) => child !== block)
    if (others.length === 0) {
      block = parent
      continue
    }
    if (others.length === 1 && words(others[0]!.textContent).length <= MAX_WORDS && (HEADINGS.has(others[0]!.localName) || !!others[0]!.querySelector('h2, h3, h4, h5, h6'))) block = parent
    break
  }
  return block
}

/** Removes from `root` (the content chosen on a shop's product page) each directory of links to the shop's categories; returns how many went. */
export function removeLinkDirectories(root: DomElement): number {
  const lists = Array.from(root.querySelectorAll('ul, ol')).slice(0, MAX_LISTS)
  const directories = lists.filter(isDirectory)
  for (const list of directories) directoryBlock(list, root).remove()
  return directories.length
}
