import { attributeOf } from './dom-walk.js'
import type { DomElement } from './dom.js'

/** Pages repeat a few class names on many elements: the words of each value are split once (at most this many values kept). */
const MAX_REMEMBERED = 2048
const wordsOf = new Map<string, string[]>()
const furnitureOf = new Map<string, boolean>()

function classAndId(element: DomElement): string {
  const className = attributeOf(element, 'class')
  const id = attributeOf(element, 'id')
  return id ? `${className ?? ''} ${id}` : (className ?? '')
}

function remember<T>(table: Map<string, T>, key: string, value: T): T {
  if (table.size >= MAX_REMEMBERED) table.clear()
  table.set(key, value)
  return value
}

function splitWords(value: string): string[] {
  if (!value.trim()) return []
  return value
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
}

/**
 * The words of an element's class and id: split at anything that is not a
 * letter or digit and at camelCase humps, lower-cased
 * ("relatedPosts share_bar" gives related, posts, share, bar). The array is
 * shared between calls: read it, do not change it.
 */
export function attributeWords(element: DomElement): readonly string[] {
  return classWords(classAndId(element))
}

/** The words of a class and id read already (`${class} ${id}`), as attributeWords splits them. */
export function classWords(value: string): readonly string[] {
  return wordsOf.get(value) ?? remember(wordsOf, value, splitWords(value))
}

/**
 * Words that name the furniture around an article rather than the article:
 * sharing and follow buttons, related and recommended stories, newsletter and
 * subscription boxes, advertising, comments, tags, navigation, photo
 * galleries (their captions, credits and controls), bylines and author boxes,
 * pop-ups. A word matches as a whole word, or as the start of a longer one
 * for the prefixes (relatedposts, sharebar, newslettersignup).
 */
const WORDS = new Set([
  'ad', 'ads', 'adv', 'adslot', 'adunit', 'dfp', 'gpt', 'sponsor', 'sponsored', 'outbrain', 'taboola', 'zergnet', 'revcontent',
  'share', 'sharing', 'shares', 'social', 'sociable', 'follow', 'syndication', 'addthis', 'sharethis', 'sharedaddy',
  'related', 'recommended', 'recommendations', 'recirculation', 'recirc', 'popular', 'trending', 'mostread', 'teaser', 'teasers',
  'newsletter', 'newsletters', 'subscribe', 'subscription', 'signup', 'optin', 'paywall', 'cta',
  'comment', 'comments', 'disqus', 'respond',
  'tags', 'tag', 'tagcloud', 'breadcrumb', 'breadcrumbs', 'pagination', 'pager', 'nav', 'navbar', 'navigation', 'menu', 'sidebar',
  'gallery', 'slideshow', 'carousel', 'lightbox', 'slider',
  'byline', 'dateline', 'timestamp', 'author', 'authors', 'bio',
  'feedback', 'modal', 'popup', 'overlay', 'cookie', 'cookies', 'consent', 'gdpr', 'banner', 'toolbar', 'print',
])
const PREFIXES = ['advert', 'promo', 'sponsor', 'share', 'social', 'related', 'recommend', 'newsletter', 'subscri', 'comment', 'breadcrumb', 'sidebar', 'outbrain', 'taboola']

export function isBoilerplateWord(word: string): boolean {
  if (WORDS.has(word)) return true
  for (const prefix of PREFIXES) if (word.startsWith(prefix)) return true
  return false
}

/** Whether an element's class or id names page furniture (see WORDS). */
export function namesBoilerplate(element: DomElement): boolean {
  const value = classAndId(element)
  const known = furnitureOf.get(value)
  if (known !== undefined) return known
  return remember(furnitureOf, value, attributeWords(element).some(isBoilerplateWord))
}
