import type { DocumentMetadata, PageTypeBasis, StructuredData } from 'dsh-web'
import { cleanUntrustedLine } from 'dsh-host'
import { TITLE_MAX } from './line-limits.js'

/** Names at most shown of a breadcrumb trail and of the declared types (the reader keeps at most 10 and 8). */
const BREADCRUMBS_SHOWN = 10
const TYPES_SHOWN = 8

const SOURCE_NAMES: Record<StructuredData['sources'][number], string> = { 'json-ld': 'JSON-LD', microdata: 'microdata', opengraph: 'Open Graph' }
const BASIS_NAMES: Record<Exclude<PageTypeBasis, 'declared'>, string> = {
  address: "its address (a forum's host, a thread's, a product's or documentation's path)",
  structure: 'its structure (code blocks, a control that adds to a cart beside a price, a grid of prices)',
}

/**
 * What a page says about itself (its JSON-LD, microdata or Open Graph) and
 * what kind of page the reader judged it (from that, else from its address
 * or its structure), as labelled lines for the header
 * of a `web_fetch` result: the kind when it is not an article or when the
 * page declared something, then each declared field the page gave. Every
 * value is the page's own and cleaned as any page string outside the fence
 * is (`cleanUntrustedLine`), each within `TITLE_MAX`; the heading says they
 * are the page's statements, not facts checked. None when there is nothing
 * to say.
 */
export function metadataLines(metadata: DocumentMetadata | undefined): string[] {
  const structured = metadata?.structured
  const pageType = metadata?.pageType
  if (!structured && (!pageType || pageType === 'article')) return []
  const clean = (value: string) => cleanUntrustedLine(value, { maxLength: TITLE_MAX })
  const lines: string[] = []
  const types = structured?.types.length ? structured.types.slice(0, TYPES_SHOWN).map(clean).join(', ') : undefined
  const basis = metadata?.pageTypeFrom ?? 'declared'
  if (pageType && basis === 'declared') lines.push(`- kind of page: ${pageType}, judged from what it declares${types ? ` (the page declares ${types})` : ''}`)
  else {
    if (pageType && basis !== 'declared') lines.push(`- kind of page: ${pageType}, judged from ${BASIS_NAMES[basis]}`)
    if (types) lines.push(`- declared types: ${types}`)
  }
  if (structured) {
    const field = (label: string, value: string | undefined) => {
      if (value) lines.push(`- ${label}: ${clean(value)}`)
    }
    field('name', structured.name)
    field('author', structured.author)
    field('published', structured.datePublished)
    field('modified', structured.dateModified)
    const product = structured.product
    if (product) {
      if (product.name && product.name !== structured.name) field('product', product.name)
      field('brand', product.brand)
      field('SKU', product.sku)
      if (product.price) {
        const price = [product.price, product.currency].filter(Boolean).join(' ')
        lines.push(`- price: ${clean(price)}${product.availability ? ` (${clean(product.availability)})` : ''}`)
      } else field('availability', product.availability)
    }
    if (structured.breadcrumbs?.length) lines.push(`- breadcrumbs: ${structured.breadcrumbs.slice(0, BREADCRUMBS_SHOWN).map(clean).join(' › ')}`)
  }
  const from = structured?.sources.length ? ` (read from its ${structured.sources.map((source) => SOURCE_NAMES[source] ?? clean(String(source))).join(', ')}; the page's own statements, untrusted like its text)` : ''
  return [`Page metadata${from}:`, ...lines]
}
