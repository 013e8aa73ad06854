import { Readability } from '@mozilla/readability'
import type { DocumentLink, DocumentMetadata, FetchExtract, FetchFormat } from 'dsh-web'
import type { DomDocument, DomElement, DomNode } from './dom.js'
import { MAX_DEPTH, flattenDeepNesting, groupWideChildren } from './flatten-deep.js'
import { type HtmlParser, htmlParser } from './parse-html.js'
import { chooseCandidate, widenToList } from './choose-candidate.js'
import { pageCandidates } from './list-candidate.js'
import { removeUnseen } from './dom-clean.js'
import { pruneContent, trimLeadingLabels } from './prune-content.js'
import { toMarkdown } from './to-markdown.js'
import { toPlainText } from './to-text.js'

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
}

export const MAX_LINKS = 50
/** Main content shorter than this (in characters) is "nothing usable". */
const MIN_MAIN_CHARS = 200
const READABILITY_VERSION = '0.6'

function baseUrlOf(document: DomDocument, url: string, html: string): string {
  // A search of the whole tree for a tag most pages do not have: look at the source first.
  const href = /<base\b/i.test(html) ? document.querySelector('base[href]')?.getAttribute('href') : undefined
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
  for (const element of Array.from(document.querySelectorAll('meta[content]'))) {
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

function readMetadata(document: DomDocument, base: string): DocumentMetadata {
  const table = metaTable(document)
  const meta = (...names: string[]) => names.map((name) => table.get(name)).find((value) => value !== undefined)
  const canonical = document.querySelector('link[rel~="canonical"][href]')?.getAttribute('href')
  return {
    title: meta('og:title', 'twitter:title') ?? (document.title?.trim() || undefined),
    byline: meta('author', 'article:author', 'dc.creator'),
    siteName: meta('og:site_name', 'application-name'),
    lang: document.documentElement?.getAttribute('lang')?.trim() || undefined,
    publishedTime: meta('article:published_time', 'datepublished', 'date', 'dc.date', 'pubdate'),
    canonicalUrl: canonical ? absolute(canonical, base) : undefined,
    excerpt: meta('description', 'og:description'),
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
  for (const anchor of Array.from(root.querySelectorAll('a[href]'))) {
    const href = anchor.getAttribute('href')!
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

function runReadability(document: DomDocument, base: string, maxElemsToParse: number): ReadabilityArticle | null {
  // linkedom has no base URL; readability reads these to resolve relative links.
  Object.defineProperty(document, 'baseURI', { value: base, configurable: true })
  Object.defineProperty(document, 'documentURI', { value: base, configurable: true })
  const reader = new Readability(document as never, { maxElemsToParse, keepClasses: true, serializer: (node: unknown) => node } as never)
  return reader.parse() as ReadabilityArticle | null
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
 * scripts, styles and hidden elements.
 */
export function extractHtml(input: ExtractInput, parser: HtmlParser = htmlParser): ExtractOutput {
  const warnings: string[] = []
  const { html } = input
  const parse = (source: string) => {
    const document = parser.parse(source, input.url)
    const flattened = flattenDeepNesting(document)
    groupWideChildren(document)
    return { document, flattened }
  }
  let { document, flattened } = parse(html)
  if (flattened) warnings.push(`The page nests elements more than ${MAX_DEPTH} levels deep; ${flattened} deeper part(s) were flattened to their text.`)
  const base = baseUrlOf(document, input.url, html)
  const pageMetadata = readMetadata(document, base)
  let root: DomElement | undefined
  let extractor = `${parser.name}+full`
  let metadata = pageMetadata
  if (input.extract === 'main') {
    const headline = readHeadline(document, pageMetadata)
    const { named: second, list } = document.body ? pageCandidates(document.body) : { named: undefined, list: undefined }
    let article: ReadabilityArticle | null = null
    let failure: string | undefined
    try {
      article = runReadability(document, base, input.maxElemsToParse ?? 0)
    } catch (error) {
      failure = (error as Error).message
    }
    const content = article?.content as DomElement | undefined
    const length = (content?.textContent ?? '').replace(/\s+/g, ' ').trim().length
    if (article && content && length >= MIN_MAIN_CHARS) {
      pruneContent(content)
      trimLeadingLabels(content)
      const named = second && chooseCandidate({ scored: content, named: second }) === 'named'
      const widened = widenToList(named ? second : content, list)
      root = widened ?? (named ? second : content)
      extractor = widened ? `markup-list+${parser.name}` : named ? `markup-container+${parser.name}` : `readability@${READABILITY_VERSION}+${parser.name}`
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
          ? `Main-content extraction failed (${failure}); the whole page body is returned instead.`
          : 'No main content was found on this page; the whole page body (cleaned) is returned instead.',
      )
      // readability changes the document as it works; start again from the source.
      document = parse(html).document
      extractor = `${parser.name}+full(fallback)`
    }
  }
  root ??= cleanBody(document)
  // readability was asked to keep class names, for the clean-ups; the HTML returned has none, as before.
  if (input.format === 'html') for (const element of Array.from(root.querySelectorAll('[class]'))) element.removeAttribute('class')
  const links = resolveLinks(root, base)
  const text = render(root, input.format)
  for (const key of Object.keys(metadata) as (keyof DocumentMetadata)[]) if (metadata[key] === undefined) delete metadata[key]
  return { text, metadata, links, extractor, warnings }
}

export type { DomNode }
