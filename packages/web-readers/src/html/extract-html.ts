import { Readability } from '@mozilla/readability'
import type { DocumentLink, DocumentMetadata, FetchExtract, FetchFormat } from 'dsh-web'
import type { DomDocument, DomElement, DomNode } from './dom.js'
import { MAX_DEPTH, boundTree } from './flatten-deep.js'
import { holdsOf } from './built-document.js'
import { type HtmlParser, htmlParser } from './parse-html.js'
import { chooseCandidate, widenToList } from './choose-candidate.js'
import { pageCandidates } from './list-candidate.js'
import { removeUnseen } from './dom-clean.js'
import { byTag } from './dom-walk.js'
import { removeChoiceMenus } from './choice-menus.js'
import { keepDataTables } from './data-tables.js'
import { removePageChrome, removeSiteNavigation } from './page-chrome.js'
import { headingText, productBlock } from './product-block.js'
import { removeSuggestions } from './recommendations.js'
import { removeReviews } from './product-reviews.js'
import { productSections } from './product-sections.js'
import { removeBuyBoxes } from './buy-box.js'
import { removeRepeatedBlocks } from './repeated-blocks.js'
import { removeProductNotes } from './product-notes.js'
import { removeMachineFields } from './product-fields.js'
import { removePriceConversions } from './price-conversions.js'
import { removeLinkDirectories } from './link-directories.js'
import { removeSponsoredCards } from './sponsored-cards.js'
import { showCollapsedPanels } from './collapsed-panels.js'
import { removeSignUpForms } from './sign-up-forms.js'
import { readShopSignals, sellsSomething } from './shop-signals.js'
import { maySection, sectionedContent } from './sectioned-page.js'
import { type PageSignals, readPageSignals } from '../outcome/page-signals.js'
import { pruneContent, trimLeadingLabels } from './prune-content.js'
import { blurbArea } from './blurb-page.js'
import { productGrid } from './product-grid.js'
import { toMarkdown } from './to-markdown.js'
import { toPlainText } from './to-text.js'
import { noscriptView } from './noscript-view.js'
import { THIN_CHARS, showHiddenPage } from './hidden-page.js'
import { judgePageType } from './page-type.js'
import { readPageStructure } from './page-structure.js'
import { readStructuredData } from './structured-data.js'

export interface ExtractInput {
  html: string
  /** The final URL: links and images are made absolute against it (or its <base>). */
  url: string
  format: FetchFormat
  extract: FetchExtract
  /** Readability gives up on documents with more elements (0: no limit). */
  maxElemsToParse?: number
}

export interface ExtractOutput {
  text: string
  metadata: DocumentMetadata
  links: DocumentLink[]
  extractor: string
  warnings: string[]
  /** Of an HTML page: what page-outcome.ts judges it by, read before extraction changes the tree. */
  signals?: PageSignals
  /** Of a paged document (a PDF): where each page's marker line starts in `text`, page 1 first. */
  pageStarts?: number[]
}

export const MAX_LINKS = 50
/** Main content shorter than this (in characters) is "nothing usable". */
const MIN_MAIN_CHARS = 200
const READABILITY_VERSION = '0.6'

function baseUrlOf(document: DomDocument, url: string, html: string): string {
  // A search of the whole tree for a tag most pages do not have: look at the source first.
  const href = (holdsOf(document)?.base ?? /<base\b/i.test(html)) ? document.querySelector('base[href]')?.getAttribute('href') : undefined
  if (href) {
    try {
      const base = new URL(href, url)
      if (base.protocol === 'http:' || base.protocol === 'https:') return base.href
    } catch {
      // an unusable <base> is ignored, as browsers do
    }
  }
  return url
}


/** The content of every <meta> by its property, name or itemprop (lower case), first one kept. */
function metaTable(document: DomDocument): Map<string, string> {
  const table = new Map<string, string>()
  for (const element of Array.from(byTag(document, 'meta'))) {
    const content = element.getAttribute('content')?.trim()
    if (!content) continue
    for (const attribute of ['property', 'name', 'itemprop']) {
      const key = element.getAttribute(attribute)?.trim().toLowerCase()
      if (key && !table.has(key)) table.set(key, content)
    }
  }
  return table
}

function absolute(value: string, base: string): string | undefined {
  try {
    return new URL(value.trim(), base).href
  } catch {
    return undefined
  }
}

function readMetadata(document: DomDocument, base: string, html: string, url: string): DocumentMetadata {
  const table = metaTable(document)
  const reading = readStructuredData(document, html, table)
  const judged = judgePageType(reading, () => (document.body ? readPageStructure(document.body) : undefined), url)
  const meta = (...names: string[]) => names.map((name) => table.get(name)).find((value) => value !== undefined)
  const canonical = Array.from(byTag(document, 'link'))
    .find((link) => link.hasAttribute('href') && /(?:^|\s)canonical(?:\s|$)/i.test(link.getAttribute('rel') ?? ''))
    ?.getAttribute('href')
  return {
    title: meta('og:title', 'twitter:title') ?? (document.title?.trim() || undefined),
    byline: meta('author', 'article:author', 'dc.creator'),
    siteName: meta('og:site_name', 'application-name'),
    lang: document.documentElement?.getAttribute('lang')?.trim() || undefined,
    publishedTime: meta('article:published_time', 'datepublished', 'date', 'dc.date', 'pubdate'),
    canonicalUrl: canonical ? absolute(canonical, base) : undefined,
    excerpt: meta('description', 'og:description'),
    pageType: judged?.type,
    pageTypeFrom: judged?.from,
    structured: reading.structured,
  }
}

/** What `extract: 'full'` keeps: the body minus scripts, styles, hidden elements and embedded objects. */
function cleanBody(document: DomDocument): DomElement {
  const body = document.body ?? document.documentElement ?? document.createElement('body')
  removeUnseen(body)
  return body
}

/** Makes links and images absolute, drops script links, and lists up to MAX_LINKS distinct http(s) links. */
function resolveLinks(root: DomElement, base: string): DocumentLink[] {
  const links: DocumentLink[] = []
  const seen = new Set<string>()
  for (const anchor of Array.from(byTag(root, 'a'))) {
    const href = anchor.getAttribute('href')
    if (href === null) continue
    const resolved = absolute(href, base)
    if (!resolved || !/^https?:/i.test(resolved)) {
      if (resolved && /^javascript:/i.test(resolved)) anchor.removeAttribute('href')
      else if (!href.startsWith('#') && !resolved?.startsWith('mailto:')) anchor.removeAttribute('href')
      continue
    }
    anchor.setAttribute('href', resolved)
    if (links.length < MAX_LINKS && !seen.has(resolved)) {
      seen.add(resolved)
      const text = (anchor.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 200)
      links.push(text ? { url: resolved, text } : { url: resolved })
    }
  }
  for (const image of Array.from(root.querySelectorAll('img'))) {
    const src = image.getAttribute('src') ?? image.getAttribute('data-src')
    const resolved = src ? absolute(src, base) : undefined
    if (resolved && /^https?:/i.test(resolved)) image.setAttribute('src', resolved)
    else image.removeAttribute('src')
    image.removeAttribute('srcset')
  }
  return links
}

function render(root: DomElement, format: FetchFormat): string {
  switch (format) {
    case 'markdown':
      return toMarkdown(root)
    case 'text':
      return toPlainText(root)
    case 'html':
      return root.innerHTML.trim()
  }
}

interface ReadabilityArticle {
  title?: string | null
  byline?: string | null
  lang?: string | null
  siteName?: string | null
  publishedTime?: string | null
  excerpt?: string | null
  content: unknown
  textContent?: string | null
}

/** What readability's first look at the page's HTML gets instead of a serialization (see runReadability). */
const PAGE_AS_PARSED = '\u0000dsh: the page as parsed'

/** Readability's steps before it reads the page (Readability.parse, 0.6.0, pinned), replayed on a fresh parse. */
interface ReadabilitySteps {
  _grabArticle(page?: unknown): DomElement | null
  _unwrapNoscriptImages(document: unknown): void
  _removeScripts(document: unknown): void
  _prepDocument(): void
}
for (const step of ['_grabArticle', '_unwrapNoscriptImages', '_removeScripts', '_prepDocument'] as const) {
  if (typeof (Readability.prototype as unknown as ReadabilitySteps)[step] !== 'function') throw new Error(`@mozilla/readability changed: no ${step}`)
}

/**
 * Readability serializes the whole body (`page.innerHTML`) before each page
 * it reads, only to parse that HTML back into the body if a pass finds too
 * little text and it starts again with looser rules (a few pages in a
 * hundred). Here the body's `innerHTML` answers a marker instead, and
 * setting the marker back rebuilds the body from the source: parsed again
 * (parse5, with our clean-ups: `rebuild`) and put through the same steps
 * readability took before it read the page. So the common page pays for no
 * serialization, and a page read again is the tree a browser builds, not
 * linkedom's reading of a serialization.
 */
function runReadability(document: DomDocument, base: string, maxElemsToParse: number, rebuild: () => DomDocument): ReadabilityArticle | null {
  // linkedom has no base URL; readability reads these to resolve relative links.
  Object.defineProperty(document, 'baseURI', { value: base, configurable: true })
  Object.defineProperty(document, 'documentURI', { value: base, configurable: true })
  const options = { maxElemsToParse, keepClasses: true, serializer: (node: unknown) => node }
  const reader = new Readability(document as never, options as never)
  // parse() logs the article's HTML whether or not it logs at all: that first read gets nothing.
  const steps = reader as unknown as ReadabilitySteps
  const grab = steps._grabArticle
  steps._grabArticle = (page) => {
    const content = grab.call(reader, page)
    if (content) Object.defineProperty(content, 'innerHTML', { configurable: true, get: () => (delete (content as { innerHTML?: string }).innerHTML, '') })
    return content
  }
  const body = document.body
  if (!body) return reader.parse() as ReadabilityArticle | null
  const own = body as unknown as { innerHTML: string }
  const inherited = innerHtmlAccessor(body)
  Object.defineProperty(body, 'innerHTML', {
    configurable: true,
    get: () => PAGE_AS_PARSED,
    set(html: string) {
      if (html !== PAGE_AS_PARSED) return inherited.set!.call(body, html)
      const fresh = rebuild()
      const steps = new Readability(fresh as never, options as never) as unknown as ReadabilitySteps
      steps._unwrapNoscriptImages(fresh)
      steps._removeScripts(fresh)
      steps._prepDocument()
      while (body.firstChild) body.firstChild.remove()
      const children = fresh.body ? Array.from(fresh.body.childNodes) : []
      for (const child of children) body.appendChild(child)
    },
  })
  try {
    return reader.parse() as ReadabilityArticle | null
  } finally {
    delete (own as { innerHTML?: string }).innerHTML
  }
}

/** The `innerHTML` accessor an element inherits (linkedom's Element). */
function innerHtmlAccessor(element: DomElement): PropertyDescriptor {
  for (let proto = Object.getPrototypeOf(element); proto; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, 'innerHTML')
    if (descriptor?.set) return descriptor
  }
  throw new Error('linkedom changed: elements have no innerHTML accessor')
}

/** Letters and digits only, lower case: how two titles are compared. */
function titleKey(value: string): string {
  return value.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()
}

/**
 * The page's own headline: its first <h1> when that is the page's title or
 * one of the title's parts ("Rate limits" of "Rate limits | Parcel API
 * docs"), and not the site's name or a link home (a logo in an <h1>). Read
 * before readability, which drops an <h1> that repeats the title. The body
 * text does not repeat it: the metadata title carries it to the header line.
 */
function readHeadline(document: DomDocument, metadata: DocumentMetadata): string | undefined {
  const heading = document.body?.querySelector('h1')
  const text = heading?.textContent?.replace(/\s+/g, ' ').trim()
  if (!heading || !text || text.length > 300) return undefined
  const key = titleKey(text)
  if (!key || (metadata.siteName && key === titleKey(metadata.siteName))) return undefined
  const home = heading.querySelector('a[href]')?.getAttribute('href')
  if (home && /^(?:https?:\/\/[^/]+)?\/?(?:index\.\w+)?$/i.test(home.trim())) return undefined
  for (const title of [metadata.title, document.title]) {
    if (!title) continue
    if (titleKey(title) === key) return text
    for (const part of title.split(/\s+[|\-–—:·»]\s+/)) if (titleKey(part) === key) return text
  }
  return undefined
}

function pick(...values: (string | null | undefined)[]): string | undefined {
  for (const value of values) {
    const trimmed = value?.replace(/\s+/g, ' ').trim()
    if (trimmed) return trimmed
  }
  return undefined
}

/**
 * HTML to what the model reads. `main` builds two candidates by different
 * methods, readability's scoring and the container the markup names as the
 * article (container-candidate.ts), cleans both and keeps one
 * (choose-candidate.ts); it falls back to the whole cleaned body (saying so)
 * when neither finds anything usable. `full` keeps the whole body minus
 * scripts, styles and hidden elements. A page that gave under THIN_CHARS
 * is read again with what it hides until its scripts run shown
 * (hidden-page.ts), when it hides such a page; the longer reading stays.
 */
export function extractHtml(input: ExtractInput, parser: HtmlParser = htmlParser): ExtractOutput {
  const read = readHtml(input, parser, false)!
  if (input.extract !== 'main' || read.text.length >= THIN_CHARS) return read
  // little read: a page whose content is hidden until its scripts run is read again, that content shown (hidden-page.ts)
  const shown = readHtml(input, parser, true)
  if (!shown || shown.text.length <= read.text.length) return read
  shown.warnings.push('The page hides its content until its scripts run (a style or attribute hides it in the HTML served); that content is read as a browser would show it.')
  return shown
}

/** One reading of the page; with `showHidden`, of the page with its hidden content shown, or undefined when it hides none. */
function readHtml(input: ExtractInput, parser: HtmlParser, showHidden: boolean): ExtractOutput | undefined {
  const warnings: string[] = []
  const { html } = input
  let shown = false
  const parse = (source: string) => {
    const document = parser.parse(source, input.url)
    const { flattened } = boundTree(document)
    if (showHidden && document.body) shown = showHiddenPage(document.body) || shown
    return { document, flattened }
  }
  let { document, flattened } = parse(html)
  if (showHidden && !shown) return undefined
  if (flattened) warnings.push(`The page nests elements more than ${MAX_DEPTH} levels deep; ${flattened} deeper part(s) were flattened to their text.`)
  const base = baseUrlOf(document, input.url, html)
  let signals = readPageSignals(document, html)
  const pageMetadata = readMetadata(document, base, html, input.url)
  const noscript = noscriptView(document, signals)
  let source = html
  if (noscript !== undefined) {
    // The head stays (readability reads its title and metadata); the body is what the <noscript> shows.
    const head = document.head?.outerHTML ?? ''
    source = `<!doctype html><html>${head}<body>${noscript}</body></html>`
    ;({ document } = parse(source))
    signals = readPageSignals(document, html)
    warnings.push('The page shows its content only to readers without JavaScript (inside <noscript>); that content is read, the rest of the page is left out.')
  }
  let root: DomElement | undefined
  let extractor = `${parser.name}+full`
  let metadata = pageMetadata
  let shopProduct = false
  if (input.extract === 'main') {
    // a shop's product page before any candidate is chosen: its buy box goes (buy-box.ts), its folded panels are shown (collapsed-panels.ts), its requests for the reader's e-mail go (sign-up-forms.ts)
    const forShop = (body: DomElement, buys?: DomElement[]) => {
      removeBuyBoxes(body, buys)
      showCollapsedPanels(body)
      removeSignUpForms(body)
    }
    // a page's filters and option menus, the site's footer, its dialogs and consent prompts are never its content: gone before any candidate is chosen, and before each of readability's readings (choice-menus.ts, page-chrome.ts); on a shop's product page what forShop removes too; a data table keeps its place whatever it is called (data-tables.ts)
    const withoutChrome = (page: DomDocument) => {
      if (page.body) {
        removeChoiceMenus(page.body, source)
        removePageChrome(page.body)
        if (shopProduct) forShop(page.body)
        keepDataTables(page.body, source)
      }
      return page
    }
    withoutChrome(document)
    // a shop's product page: judged one product's page (page-type.ts) and selling something (shop-signals.ts)
    const shop = document.body && pageMetadata.pageType === 'product' ? readShopSignals(document.body) : undefined
    shopProduct = !!shop && sellsSomething(shop)
    if (shopProduct) forShop(document.body!, shop!.buys)
    const headline = readHeadline(document, pageMetadata)
    // one product's page: a copy of the body as it is before readability changes it, where the product's block is looked for by the product's name (product-block.ts), and on a shop's product page its titled sections (product-sections.ts)
    const productName = pageMetadata.pageType === 'product' ? (headline ?? (shopProduct ? headingText(shop!.headline) : undefined)) : undefined
    const intact = (productName || shopProduct) && document.body ? (document.body as unknown as { cloneNode(deep: boolean): DomElement }).cloneNode(true) : undefined
    // a copy of the body before readability changes it, where a page of sections finds its main area (sectioned-page.ts)
    const sectionCopy = document.body && maySection(document.body) ? (document.body as unknown as { cloneNode(deep: boolean): DomElement }).cloneNode(true) : undefined
    const { named: second, list } = document.body ? pageCandidates(document.body) : { named: undefined, list: undefined }
    let article: ReadabilityArticle | null = null
    let failure: string | undefined
    try {
      article = runReadability(document, base, input.maxElemsToParse ?? 0, () => withoutChrome(parse(source).document))
    } catch (error) {
      failure = (error as Error).message
    }
    const content = article?.content as DomElement | undefined
    const length = (content?.textContent ?? '').replace(/\s+/g, ' ').trim().length
    if (article && content && length >= MIN_MAIN_CHARS) {
      pruneContent(content)
      trimLeadingLabels(content)
      const named = second && chooseCandidate({ scored: content, named: second }) === 'named'
      const chosen = named ? second : content
      const widened = widenToList(chosen, list)
      const product = !widened && intact && productName ? productBlock(intact, chosen, productName) : undefined
      const described = !widened && !product && intact && shopProduct ? productSections(intact, chosen, document) : undefined
      root = widened ?? product ?? described ?? chosen
      extractor = widened
        ? `markup-list+${parser.name}`
        : product
          ? `product-block+${parser.name}`
          : described
            ? `product-sections+${parser.name}`
            : named
              ? `markup-container+${parser.name}`
              : `readability@${READABILITY_VERSION}+${parser.name}`
      // one section of a page made of sections: the page's main area, all its sections (sectioned-page.ts)
      const sections = sectionCopy && sectionedContent(sectionCopy, root)
      if (sections) [root, extractor] = [sections, `page-sections+${parser.name}`]
      // a page of cards read as its blurb: the page's main area (blurb-page.ts)
      const area = blurbArea(root, { ...pageMetadata, publishedTime: pick(article.publishedTime, pageMetadata.publishedTime) }, () => withoutChrome(parse(source).document).body)
      if (area) [root, extractor] = [area, `page-area+${parser.name}`]
      // a category of products read as its text for search engines: its grid of products (product-grid.ts)
      const grid = !area && pageMetadata.pageType === 'collection' && productGrid(root, () => withoutChrome(parse(source).document).body)
      if (grid) [root, extractor] = [grid, `product-grid+${parser.name}`]
      metadata = {
        ...pageMetadata,
        title: pick(headline, article.title, pageMetadata.title),
        byline: pick(article.byline, pageMetadata.byline),
        siteName: pick(article.siteName, pageMetadata.siteName),
        lang: pick(article.lang, pageMetadata.lang),
        publishedTime: pick(article.publishedTime, pageMetadata.publishedTime),
        excerpt: pick(article.excerpt, pageMetadata.excerpt),
      }
    } else if (second) {
      if (failure) warnings.push(`Readability failed (${failure}); the element the page marks as its article is returned.`)
      if (headline) metadata = { ...pageMetadata, title: headline }
      root = second
      extractor = `markup-container+${parser.name}`
    } else {
      warnings.push(
        failure
          ? `Main-content extraction failed (${failure}); the page body is returned instead, without the site's navigation, header and footer, its menus, dialogs and consent prompts.`
          : "No main content was found on this page; the page body is returned instead, without the site's navigation, header and footer, its menus, dialogs and consent prompts.",
      )
      // readability changes the document as it works; start again from the source, its chrome removed as before, and the site's navigation (page-chrome.ts)
      document = withoutChrome(parse(source).document)
      if (document.body) removeSiteNavigation(document.body)
      extractor = `${parser.name}+full(fallback)`
    }
  }
  root ??= cleanBody(document)
  // a store's suggestions of other products are not the page's content, whichever way it was chosen (recommendations.ts)
  if (input.extract === 'main') removeSuggestions(root)
  // a product's reviews and its customers' questions, on a shop's product page (product-reviews.ts)
  if (shopProduct) removeReviews(root)
  // and a maker's notes to its claims (product-notes.ts)
  if (shopProduct) removeProductNotes(root)
  // and the fields of its shop's theme, printed under it (product-fields.ts)
  if (shopProduct) removeMachineFields(root)
  // and its price in a dozen currencies (price-conversions.ts)
  if (shopProduct) removePriceConversions(root)
  // and the shop's directories of its brands and categories (link-directories.ts)
  if (shopProduct) removeLinkDirectories(root)
  // and the other products it is paid to show, each card marked so (sponsored-cards.ts)
  if (shopProduct) removeSponsoredCards(root)
  // what one product's page says twice, said once (repeated-blocks.ts)
  if (input.extract === 'main' && pageMetadata.pageType === 'product') removeRepeatedBlocks(root)
  // readability was asked to keep class names, for the clean-ups; the HTML returned has none, as before.
  if (input.format === 'html') for (const element of Array.from(root.querySelectorAll('[class]'))) element.removeAttribute('class')
  const links = resolveLinks(root, base)
  const text = render(root, input.format)
  for (const key of Object.keys(metadata) as (keyof DocumentMetadata)[]) if (metadata[key] === undefined) delete metadata[key]
  return { text, metadata, links, extractor, warnings, signals }
}

export type { DomNode }
