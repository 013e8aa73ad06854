import type { StructuredData, StructuredProduct, StructuredSource } from 'dsh-web'
import { type DomDocument, type DomElement, type DomNode, ELEMENT_NODE } from './dom.js'
import { attributeOf, byTag, nextNode } from './dom-walk.js'
import { holdsOf } from './built-document.js'

/**
 * What a page states about itself (StructuredData in dsh-web): JSON-LD,
 * then microdata, then Open Graph, each field taken from the first source
 * that has it. Copied, never inferred: white space collapsed, each string
 * cut at MAX_STRING characters. Everything the page controls is bounded:
 * JSON-LD is looked for only when the page holds a JSON-LD script,
 * microdata only when an element has `itemtype` (holdsOf: what buildTree
 * saw; a document parsed otherwise has its source searched for them); at most MAX_SCRIPTS scripts of at most
 * MAX_SCRIPT_CHARS each, walked MAX_DEPTH levels and MAX_NODES objects
 * deep; at most MAX_SCOPES microdata scopes, their properties read in at
 * most MAX_PROPERTY_STEPS steps of walking.
 */
export const MAX_STRING = 200
export const MAX_TYPES = 8
export const MAX_BREADCRUMBS = 10
export const MAX_SCRIPTS = 16
export const MAX_SCRIPT_CHARS = 200_000
export const MAX_DEPTH = 8
export const MAX_NODES = 2000
export const MAX_SCOPES = 500
/** Names of declared products kept (StructuredReading.productKeys). */
export const MAX_PRODUCT_KEYS = 64

/** What the page type is judged by besides the fields shown (page-type.ts): every type declared, and how many products. */
export interface StructuredReading {
  structured?: StructuredData
  /** Every schema.org type declared (JSON-LD and microdata), not only the first MAX_TYPES. */
  declared: Set<string>
  /** Product entities declared (a category page declares one per item). */
  products: number
  /** What the declared products name themselves by (url, @id, productID, sku), at most MAX_PRODUCT_KEYS: page-type.ts finds by them the product a page is about. */
  productKeys: string[]
  /** og:type, lower case. */
  ogType?: string
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

function clean(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value !== 'string') return undefined
  const text = value.replace(/\s+/g, ' ').trim()
  return text ? text.slice(0, MAX_STRING) : undefined
}

/** A schema.org type or availability without its vocabulary's URL (`https://schema.org/InStock` → `InStock`). */
function bare(value: string): string {
  return value.replace(/^https?:\/\/(?:www\.)?schema\.org\//i, '')
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function typesOf(node: JsonObject): string[] {
  const type = node['@type']
  const list = Array.isArray(type) ? type : [type]
  return list.map((value) => clean(value)).filter((value): value is string => value !== undefined).map(bare)
}

/** A name: the string itself, or the `name` of the object (the first of an array). */
function nameOf(value: Json | undefined): string | undefined {
  if (Array.isArray(value)) return nameOf(value[0])
  if (isObject(value)) return clean(value['name'])
  return clean(value)
}

const ARTICLE_TYPES = /^(?:\w*Article|BlogPosting|Report|LiveBlogPosting|DiscussionForumPosting|SocialMediaPosting|Question|QAPage|WebPage|ItemPage|AboutPage|FAQPage|CollectionPage|Recipe|Event|Course|HowTo)$/
const PRODUCT_TYPES = /^(?:Product|ProductGroup|IndividualProduct|ProductModel)$/

/** The fields being filled, each from the first place that has it. */
class Fields {
  readonly types: string[] = []
  readonly declared = new Set<string>()
  readonly sources: StructuredSource[] = []
  products = 0
  readonly productKeys: string[] = []
  name?: string
  author?: string
  datePublished?: string
  dateModified?: string
  product: StructuredProduct = {}
  breadcrumbs?: string[]

  declare(type: string, source: StructuredSource): void {
    this.use(source)
    this.declared.add(type)
    if (this.types.length < MAX_TYPES && !this.types.includes(type)) this.types.push(type)
  }

  /** Sets the fields `values` has that are still empty; records `source` when one was set. */
  fill(source: StructuredSource, values: Partial<Pick<Fields, 'name' | 'author' | 'datePublished' | 'dateModified' | 'breadcrumbs'>> & { product?: StructuredProduct }): void {
    let used = false
    for (const key of ['name', 'author', 'datePublished', 'dateModified', 'breadcrumbs'] as const) {
      const value = values[key]
      if (value === undefined || (Array.isArray(value) && !value.length) || this[key] !== undefined) continue
      ;(this as Record<string, unknown>)[key] = value
      used = true
    }
    for (const [key, value] of Object.entries(values.product ?? {}) as [keyof StructuredProduct, string | undefined][]) {
      if (value === undefined || this.product[key] !== undefined) continue
      this.product[key] = value
      used = true
    }
    if (used) this.use(source)
  }

  /** Counts one declared product and keeps what it names itself by. */
  countProduct(...keys: (string | undefined)[]): void {
    this.products++
    for (const key of keys) if (key !== undefined && this.productKeys.length < MAX_PRODUCT_KEYS) this.productKeys.push(key)
  }

  use(source: StructuredSource): void {
    if (!this.sources.includes(source)) this.sources.push(source)
  }
}

function offerOf(value: Json | undefined): StructuredProduct {
  const offer = Array.isArray(value) ? value.find(isObject) : value
  if (!isObject(offer)) return {}
  const specification = Array.isArray(offer['priceSpecification']) ? offer['priceSpecification'][0] : offer['priceSpecification']
  const spec = isObject(specification) ? specification : {}
  const availability = clean(offer['availability'])
  return {
    price: clean(offer['price']) ?? clean(offer['lowPrice']) ?? clean(spec['price']),
    currency: clean(offer['priceCurrency']) ?? clean(spec['priceCurrency']),
    availability: availability && bare(availability),
  }
}

function breadcrumbsOf(list: JsonObject): string[] {
  const elements = Array.isArray(list['itemListElement']) ? list['itemListElement'].filter(isObject) : []
  const position = (element: JsonObject) => (typeof element['position'] === 'number' ? element['position'] : Number(element['position']) || 0)
  return [...elements]
    .sort((a, b) => position(a) - position(b))
    .map((element) => clean(element['name']) ?? nameOf(element['item']))
    .filter((name): name is string => name !== undefined)
    .slice(0, MAX_BREADCRUMBS)
}

/** One JSON-LD entity's fields; `variant` when it sits inside another product (a ProductGroup's variants), which it does not add to the count. */
function readEntity(node: JsonObject, types: string[], fields: Fields, variant: boolean): void {
  if (types.includes('BreadcrumbList')) return fields.fill('json-ld', { breadcrumbs: breadcrumbsOf(node) })
  if (types.some((type) => PRODUCT_TYPES.test(type))) {
    if (!variant) fields.countProduct(clean(node['url']), clean(node['@id']), clean(node['productID']), clean(node['sku']))
    const offer = offerOf(node['offers'])
    fields.fill('json-ld', { product: { name: clean(node['name']), brand: nameOf(node['brand']), sku: clean(node['sku']), ...offer } })
  }
  if (types.some((type) => ARTICLE_TYPES.test(type) || PRODUCT_TYPES.test(type))) {
    fields.fill('json-ld', {
      name: clean(node['headline']) ?? clean(node['name']),
      author: nameOf(node['author']),
      datePublished: clean(node['datePublished']) ?? clean(node['uploadDate']),
      dateModified: clean(node['dateModified']),
    })
  }
}

function readJsonLd(document: DomDocument, fields: Fields): void {
  let scripts = 0
  let nodes = 0
  const walk = (value: Json | undefined, depth: number, inProduct: boolean): void => {
    if (depth > MAX_DEPTH || nodes >= MAX_NODES || value === null || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1, inProduct)
      return
    }
    nodes++
    const types = typesOf(value)
    for (const type of types) fields.declare(type, 'json-ld')
    if (types.length) readEntity(value, types, fields, inProduct)
    const product = inProduct || types.some((type) => PRODUCT_TYPES.test(type))
    for (const [key, child] of Object.entries(value)) if (key !== '@context' && typeof child === 'object') walk(child, depth + 1, product)
  }
  for (const script of Array.from(byTag(document, 'script'))) {
    if (!/ld\+json/i.test(script.getAttribute('type') ?? '')) continue
    if (++scripts > MAX_SCRIPTS) break
    const source = script.textContent ?? ''
    if (source.length > MAX_SCRIPT_CHARS) continue
    let parsed: Json
    try {
      parsed = JSON.parse(source) as Json
    } catch {
      continue // malformed JSON-LD is the page's mistake: it states nothing
    }
    walk(parsed, 0, false)
  }
}

/** The closest element with `itemscope` above `element` (itself excluded), or undefined. */
function scopeOf(element: DomElement): DomElement | undefined {
  for (let node = element.parentNode as DomElement | null; node && node.nodeType === 1; node = node.parentNode as DomElement | null) {
    if (node.hasAttribute('itemscope')) return node
  }
  return undefined
}

/** A microdata property's value: `content`, a link's or time's attribute, else the text. */
function propertyValue(element: DomElement): string | undefined {
  return clean(element.getAttribute('content') ?? element.getAttribute('datetime') ?? (element.localName === 'link' ? element.getAttribute('href') : null) ?? element.textContent)
}

/** Steps the walks for microdata properties take in all, on one page; past them a scope has the properties found so far. */
export const MAX_PROPERTY_STEPS = 200_000

/**
 * The properties of microdata scopes, each scope walked once: its own
 * elements with `itemprop`, by each name they give, in document order (a
 * scope nested in it is one of its properties, and what it holds is its
 * own). Linkedom would compile a selector for every property asked.
 */
class Properties {
  private readonly byScope = new Map<DomElement, Map<string, DomElement[]>>()
  private steps = MAX_PROPERTY_STEPS

  /** The elements that are property `name` of `scope` itself, in document order. */
  elements(scope: DomElement, name: string): DomElement[] {
    let own = this.byScope.get(scope)
    if (!own) {
      own = new Map()
      this.byScope.set(scope, own)
      for (let node = scope.firstChild; node && this.steps-- > 0; ) {
        const element = node as DomElement
        if (node.nodeType !== ELEMENT_NODE) {
          node = nextNode(node, scope)
          continue
        }
        const names = attributeOf(element, 'itemprop')
        if (names) {
          for (const key of names.split(/\s+/)) {
            if (!key) continue
            const list = own.get(key)
            if (list) list.push(element)
            else own.set(key, [element])
          }
        }
        node = nextNode(node, scope, element.hasAttribute('itemscope'))
      }
    }
    return own.get(name) ?? []
  }

  /** The first property `name` of `scope` itself (not of a scope nested in it), or the name of the scope the property holds. */
  value(scope: DomElement, name: string): string | undefined {
    const element = this.elements(scope, name)[0]
    if (!element) return undefined
    if (element.hasAttribute('itemscope')) return this.value(element, 'name')
    return propertyValue(element)
  }
}

/** The first MAX_SCOPES elements with both `itemscope` and `itemtype`, in document order, by one walk. */
function scopesOf(document: DomDocument): DomElement[] {
  const scopes: DomElement[] = []
  const root = document.documentElement as DomElement | null
  for (let node: DomNode | null = root; node && scopes.length < MAX_SCOPES; node = nextNode(node, root!)) {
    if (node.nodeType === ELEMENT_NODE && (node as DomElement).hasAttribute('itemscope') && (node as DomElement).hasAttribute('itemtype')) scopes.push(node as DomElement)
  }
  return scopes
}

function readMicrodata(document: DomDocument, fields: Fields): void {
  const properties = new Properties()
  const property = (scope: DomElement, name: string) => properties.value(scope, name)
  for (const scope of scopesOf(document)) {
    const types = (scope.getAttribute('itemtype') ?? '').split(/\s+/).map((type) => clean(type)).filter((type): type is string => !!type).map((type) => bare(type).replace(/^.*\//, ''))
    for (const type of types) fields.declare(type, 'microdata')
    if (types.includes('BreadcrumbList')) {
      const names = properties
        .elements(scope, 'itemListElement')
        .slice(0, MAX_BREADCRUMBS)
        .map((element) => (element.hasAttribute('itemscope') ? property(element, 'name') : propertyValue(element)))
        .filter((name): name is string => name !== undefined)
      fields.fill('microdata', { breadcrumbs: names })
      continue
    }
    if (types.some((type) => PRODUCT_TYPES.test(type))) {
      const outer = scopeOf(scope)
      if (!outer || !/Product/i.test(outer.getAttribute('itemtype') ?? '')) fields.countProduct(property(scope, 'url'), property(scope, 'productID'), property(scope, 'sku'))
      const offer = properties.elements(scope, 'offers').find((element) => element.hasAttribute('itemscope')) ?? scope
      const availability = property(offer, 'availability')
      fields.fill('microdata', {
        product: {
          name: property(scope, 'name'),
          brand: property(scope, 'brand'),
          sku: property(scope, 'sku'),
          price: property(offer, 'price') ?? property(offer, 'lowPrice'),
          currency: property(offer, 'priceCurrency'),
          availability: availability && bare(availability),
        },
      })
    }
    if (types.some((type) => ARTICLE_TYPES.test(type) || PRODUCT_TYPES.test(type))) {
      fields.fill('microdata', {
        name: property(scope, 'headline') ?? property(scope, 'name'),
        author: property(scope, 'author'),
        datePublished: property(scope, 'datePublished'),
        dateModified: property(scope, 'dateModified'),
      })
    }
  }
}

/**
 * The page's statements about itself. `meta` is the page's <meta> table
 * (content by property, name or itemprop, lower case) for Open Graph.
 */
export function readStructuredData(document: DomDocument, html: string, meta: Map<string, string>): StructuredReading {
  const fields = new Fields()
  const holds = holdsOf(document)
  if (holds?.jsonLd ?? /ld\+json/i.test(html)) readJsonLd(document, fields)
  if (holds?.itemtype ?? /itemtype/i.test(html)) readMicrodata(document, fields)
  const ogType = clean(meta.get('og:type'))?.toLowerCase()
  if (ogType) {
    fields.use('opengraph')
    if (!fields.types.length) fields.types.push(ogType)
  }
  fields.fill('opengraph', {
    datePublished: clean(meta.get('article:published_time')),
    dateModified: clean(meta.get('article:modified_time')),
    product: {
      price: clean(meta.get('product:price:amount') ?? meta.get('og:price:amount')),
      currency: clean(meta.get('product:price:currency') ?? meta.get('og:price:currency')),
    },
  })
  const reading: StructuredReading = { declared: fields.declared, products: fields.products, productKeys: fields.productKeys, ...(ogType ? { ogType } : {}) }
  if (!fields.sources.length) return reading
  const product = Object.keys(fields.product).length ? fields.product : undefined
  const structured: StructuredData = { sources: fields.sources, types: fields.types }
  for (const [key, value] of [
    ['name', fields.name],
    ['author', fields.author],
    ['datePublished', fields.datePublished],
    ['dateModified', fields.dateModified],
    ['product', product],
    ['breadcrumbs', fields.breadcrumbs],
  ] as const) {
    if (value !== undefined) (structured as unknown as Record<string, unknown>)[key] = value
  }
  return { ...reading, structured }
}
