import type { PageType, PageTypeBasis } from 'dsh-web'
import type { PageStructure } from './page-structure.js'
import type { StructuredReading } from './structured-data.js'

/** A page declaring this many products or more is a category page of them, not one product's page. */
const PRODUCTS_OF_A_COLLECTION = 3

const FORUM = /^(?:DiscussionForumPosting|QAPage)$/
const LISTS = /^(?:CollectionPage|ItemList|SearchResultsPage|OfferCatalog)$/
/** The types that say the page itself is a list: beside a product, a category that features one. An ItemList or an OfferCatalog beside one product or two is a part of the product's page (its videos, its related items, its variants' offers). */
const PAGES_OF_A_LIST = /^(?:CollectionPage|SearchResultsPage)$/
const DOCUMENTATION = /^(?:TechArticle|APIReference)$/
const ARTICLE = /^(?:Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|LiveBlogPosting|OpinionNewsArticle|AnalysisNewsArticle|ReportageNewsArticle)$/

function declares(reading: StructuredReading, pattern: RegExp): boolean {
  for (const type of reading.declared) if (pattern.test(type)) return true
  return false
}

/** A product's id or sku this long or longer, with a digit in it, is not in a page's address by chance. */
const MIN_ID_CHARS = 4

/** A page's path, lower case, without a trailing slash. */
function pathOf(address: string, base: string): string | undefined {
  try {
    return new URL(address, base).pathname.toLowerCase().replace(/\/+$/, '')
  } catch {
    return undefined
  }
}

/**
 * Whether a declared product is the one this page is about: its url (or
 * @id) is the page's own path, or its id or sku is a whole word of the
 * page's path (`/moon-silver/28000436.html` and productID 28000436).
 */
function declaresItsOwnProduct(reading: StructuredReading, url: string): boolean {
  const path = pathOf(url, url)
  if (!path) return false
  const words = new Set(path.split(/[^a-z0-9]+/).filter(Boolean))
  return reading.productKeys.some((key) => {
    if (key.includes('/')) return pathOf(key, url) === path
    const id = key.toLowerCase()
    return id.length >= MIN_ID_CHARS && /\d/.test(id) && words.has(id)
  })
}

/** What the page declares about itself: undefined when it declares none of the types below. */
function declaredType(reading: StructuredReading, url: string): PageType | undefined {
  const { ogType, products } = reading
  if (declares(reading, FORUM)) return 'forum'
  const listed = declares(reading, LISTS)
  if (ogType === 'product.group' || (products > 0 && declares(reading, PAGES_OF_A_LIST))) return 'collection'
  if (products >= PRODUCTS_OF_A_COLLECTION && !declaresItsOwnProduct(reading, url)) return 'collection'
  if (products > 0 || ogType === 'product' || ogType === 'og:product') return 'product'
  if (listed) return 'listing'
  if (declares(reading, DOCUMENTATION)) return 'documentation'
  if (declares(reading, ARTICLE) || ogType === 'article') return 'article'
  return undefined
}

/** The first labels of a host (`forum` of forum.example.com) and the segments of a path, lower case. */
function addressWords(url: string): { labels: string[]; segments: string[] } {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { labels: [], segments: [] }
  }
  const labels = parsed.hostname.toLowerCase().split('.').slice(0, -2)
  const segments = parsed.pathname.toLowerCase().split('/').filter(Boolean)
  return { labels, segments }
}

const FORUM_HOSTS = new Set(['forum', 'forums', 'community', 'discuss', 'discourse'])
/** A thread's path names it (and goes on to the thread's own name): /threads/…, /t/…, /questions/…. */
const THREAD_SEGMENTS = new Set(['threads', 'thread', 'topic', 'topics', 't', 'questions'])
const THREAD_SCRIPTS = new Set(['viewtopic.php', 'showthread.php'])
const DOCUMENTATION_HOSTS = new Set(['docs', 'doc', 'developer', 'developers', 'wiki'])
const DOCUMENTATION_ROOTS = new Set(['docs', 'doc', 'documentation', 'reference', 'api'])
const COLLECTION_ROOTS = new Set(['collections', 'category', 'categories', 'c'])
/** A product's path names it and goes on to the product's own name or number: /products/…, /dp/…, /itm/…. */
const PRODUCT_SEGMENTS = new Set(['products', 'product', 'p', 'pdp', 'dp', 'itm', 'ip'])
const SERVICE_SEGMENTS = new Set(['services', 'service', 'solutions'])

/** Code blocks that make a page documentation: two <pre> blocks, or ten <code> elements. */
const DOCUMENTATION_PRE = 2
const DOCUMENTATION_CODE = 10
/** One product's page shows its price and a few others (a sale price, a bundle); more are a grid of products. */
const PRODUCT_MAX_PRICES = 12
/** One product's page has one basket button, or two (its own and a bar that follows the reader down); more are a category's, one on each card. */
const PRODUCT_MAX_BUYS = 2

export interface PageTypeJudgement {
  type: PageType
  from: PageTypeBasis
}

/**
 * What kind of page this is. First from what the page declares about itself
 * (structured-data.ts): a thread (DiscussionForumPosting, QAPage), one
 * product (a Product, or og:type product, and no list of them), a category
 * of products (og:type product.group, several products declared none of
 * which is the page itself, or a CollectionPage or SearchResultsPage beside
 * products; a product is the page itself when its url is the page's or its
 * id a word of the page's path: a watch's page declares the tiles of its
 * search box's suggestions beside its own, WCXB 0586, the one page of
 * 1,358 it changes, 0.38 -> 0.41; an ItemList or an
 * OfferCatalog beside one product or two is a part of the product's page:
 * on WCXB dev, three product pages were judged a category by it, no page
 * of another type declares it so; products +0.0005), a listing (a list type alone), documentation
 * (TechArticle, APIReference), an article (its schema.org types, or og:type
 * article). A page that declares none of these is judged from its address
 * and its structure (PageStructure), in this order: a forum's host or a
 * thread's path; code blocks (documentation); documentation's host or path;
 * one basket button or two beside at most PRODUCT_MAX_PRICES prices, or
 * any number of basket buttons and prices where the path names a product
 * (/dp/…, /products/…, /pdp/…: a product's page showing the prices of
 * others it suggests, bought together or sponsored, each card with its
 * button; WCXB 0620, a chair with 13 sponsored cards, 0.18 ->
 * 0.60; every page of WCXB dev whose path names a product and holds more
 * than two buttons is a product's page), one product; more prices (a
 * category of products); a
 * category's path; a product's path; a service's path (the structure is
 * read only for a page that declares nothing). Undefined when nothing tells: today's
 * path (readability's scoring and the markup's container) reads it.
 * Measured on WCXB's development split against its labels: declarations
 * alone judge 693 of 1,358 pages right; with the address and the
 * structure, 829, and the pages judged a forum are one in 0.92, a service
 * 0.93, documentation 0.77, a product 0.79. The product's path beside
 * many prices: three more of WCXB's product pages judged one (none of
 * another type), products +0.0087 (a pair of headphones 0.31 -> 0.74, a
 * speaker 0.30 -> 0.64, a book 0.38 -> 0.41), no page worse.
 */
export function judgePageType(reading: StructuredReading, readStructure: () => PageStructure | undefined, url: string): PageTypeJudgement | undefined {
  const declared = declaredType(reading, url)
  if (declared) return { type: declared, from: 'declared' }
  // read only here: most pages declare what they are
  const structure = readStructure()
  const { labels, segments } = addressWords(url)
  const within = segments.slice(0, -1)
  const byAddress = (type: PageType): PageTypeJudgement => ({ type, from: 'address' })
  const byStructure = (type: PageType): PageTypeJudgement => ({ type, from: 'structure' })
  if (labels.some((label) => FORUM_HOSTS.has(label)) || within.some((segment) => THREAD_SEGMENTS.has(segment)) || segments.some((segment) => THREAD_SCRIPTS.has(segment))) return byAddress('forum')
  if (structure && (structure.preBlocks >= DOCUMENTATION_PRE || structure.codeElements >= DOCUMENTATION_CODE)) return byStructure('documentation')
  if (labels.some((label) => DOCUMENTATION_HOSTS.has(label)) || (segments[0] !== undefined && DOCUMENTATION_ROOTS.has(segments[0]))) return byAddress('documentation')
  const productPath = within.some((segment) => PRODUCT_SEGMENTS.has(segment))
  if (structure && structure.buyControls > 0 && structure.prices > 0 && (productPath || (structure.buyControls <= PRODUCT_MAX_BUYS && structure.prices <= PRODUCT_MAX_PRICES))) return byStructure('product')
  if (structure && structure.prices > PRODUCT_MAX_PRICES) return byStructure('collection')
  if (within[0] !== undefined && COLLECTION_ROOTS.has(within[0])) return byAddress('collection')
  if (productPath) return byAddress('product')
  if (segments.some((segment) => SERVICE_SEGMENTS.has(segment))) return byAddress('service')
  return undefined
}
