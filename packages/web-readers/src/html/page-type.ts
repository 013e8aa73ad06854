import type { PageType } from 'dsh-web'
import type { StructuredReading } from './structured-data.js'

/** A page declaring this many products or more is a category page of them, not one product's page. */
const PRODUCTS_OF_A_COLLECTION = 3

const FORUM = /^(?:DiscussionForumPosting|QAPage)$/
const LISTS = /^(?:CollectionPage|ItemList|SearchResultsPage|OfferCatalog)$/
const DOCUMENTATION = /^(?:TechArticle|APIReference)$/
const ARTICLE = /^(?:Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|LiveBlogPosting|OpinionNewsArticle|AnalysisNewsArticle|ReportageNewsArticle)$/

function declares(reading: StructuredReading, pattern: RegExp): boolean {
  for (const type of reading.declared) if (pattern.test(type)) return true
  return false
}

/**
 * What kind of page this is, from what the page declares about itself
 * (structured-data.ts): a thread (DiscussionForumPosting, QAPage), one
 * product (a Product, or og:type product, and no list of them), a category
 * of products (og:type product.group, several products declared, or a list
 * type beside products), a listing (a list type alone), documentation
 * (TechArticle, APIReference), an article (its schema.org types, or og:type
 * article). Undefined when the page declares none of these: today's path
 * (readability's scoring and the markup's container) reads it.
 */
export function judgePageType(reading: StructuredReading): PageType | undefined {
  const { ogType, products } = reading
  if (declares(reading, FORUM)) return 'forum'
  const listed = declares(reading, LISTS)
  if (ogType === 'product.group' || products >= PRODUCTS_OF_A_COLLECTION || (listed && products > 0)) return 'collection'
  if (products > 0 || ogType === 'product' || ogType === 'og:product') return 'product'
  if (listed) return 'listing'
  if (declares(reading, DOCUMENTATION)) return 'documentation'
  if (declares(reading, ARTICLE) || ogType === 'article') return 'article'
  return undefined
}
