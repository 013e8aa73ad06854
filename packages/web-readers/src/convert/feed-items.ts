import { DOMParser, parseHTML } from 'linkedom'
import type { DocumentMetadata, FetchFormat } from 'dsh-web'
import type { ExtractOutput } from '../html/extract-html.js'

/** The few members of linkedom's nodes read here. */
interface XmlNode {
  nodeType: number
  nodeName: string
  textContent: string | null
  childNodes: ArrayLike<XmlNode>
}

interface XmlElement extends XmlNode {
  tagName: string
  innerHTML: string
  children: ArrayLike<XmlElement>
  getAttribute(name: string): string | null
}

export interface FeedItem {
  title?: string
  link?: string
  date?: string
  summary?: string
}

export interface Feed {
  kind: 'rss' | 'atom'
  title?: string
  link?: string
  description?: string
  items: FeedItem[]
}

function nameOf(element: XmlElement): string {
  return element.tagName.toLowerCase()
}

/** The first child element with one of the names (lower case, prefix included: `dc:date`). */
function child(parent: XmlElement, ...names: string[]): XmlElement | undefined {
  for (const name of names) {
    for (const element of Array.from(parent.children)) if (nameOf(element) === name) return element
  }
  return undefined
}

function children(parent: XmlElement, name: string): XmlElement[] {
  return Array.from(parent.children).filter((element) => nameOf(element) === name)
}

function oneLine(value: string | null | undefined): string | undefined {
  const line = value?.replace(/\s+/g, ' ').trim()
  return line || undefined
}

const BLOCKS = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'DD', 'DIV', 'DL', 'DT', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TR', 'UL'])
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'SVG'])

/**
 * An HTML fragment (an RSS description, an Atom summary of type html) to
 * plain text: block elements and <br> break lines, scripts and styles go,
 * white space in a line collapses. Iterative, so deep markup cannot overflow
 * the stack.
 */
export function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return html.replace(/[ \t\r\f]+/g, ' ').replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n').trim()
  const { document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`) as unknown as { document: { body: XmlNode } }
  let text = ''
  const stack: (XmlNode | string)[] = [document.body]
  while (stack.length) {
    const item = stack.pop()!
    if (typeof item === 'string') {
      text += item
      continue
    }
    if (item.nodeType === 3) text += item.textContent ?? ''
    if (item.nodeType !== 1 || SKIPPED.has(item.nodeName)) continue
    if (item.nodeName === 'BR') {
      text += '\n'
      continue
    }
    const block = BLOCKS.has(item.nodeName)
    if (block) {
      text += '\n\n'
      stack.push('\n\n')
    }
    const nodes = Array.from(item.childNodes)
    for (let index = nodes.length - 1; index >= 0; index--) stack.push(nodes[index]!)
  }
  return text
    .replace(/[ \t\r\f\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

/** Atom text constructs: `type="html"` holds escaped HTML, `xhtml` a div of markup, else plain text. */
function atomText(element: XmlElement | undefined): string | undefined {
  if (!element) return undefined
  const type = element.getAttribute('type')?.toLowerCase()
  if (type === 'html' || type === 'text/html') return htmlToText(element.textContent ?? '') || undefined
  if (type === 'xhtml' || type === 'application/xhtml+xml') return htmlToText(element.innerHTML) || undefined
  return htmlToText((element.textContent ?? '').replace(/[<&]/g, (character) => (character === '<' ? '&lt;' : '&amp;'))) || undefined
}

function absolute(value: string | undefined, base: string): string | undefined {
  if (!value) return undefined
  try {
    return new URL(value.trim(), base).href
  } catch {
    return value.trim()
  }
}

/** A date as ISO 8601 when it parses (RFC 822 in RSS, RFC 3339 in Atom), else as the feed wrote it. */
function readDate(value: string | undefined): string | undefined {
  if (!value) return undefined
  const time = Date.parse(value)
  return Number.isNaN(time) ? value : new Date(time).toISOString()
}

function rssItem(item: XmlElement, base: string): FeedItem {
  const guid = child(item, 'guid')
  const permalink = guid && guid.getAttribute('isPermaLink')?.toLowerCase() !== 'false' ? oneLine(guid.textContent) : undefined
  const summary = child(item, 'description') ?? child(item, 'content:encoded')
  return {
    // RSS titles are plain text (the RSS Best Practices Profile); a `<` in one is a character
    title: oneLine(child(item, 'title')?.textContent),
    link: absolute(oneLine(child(item, 'link')?.textContent) ?? permalink, base),
    date: readDate(oneLine(child(item, 'pubdate', 'dc:date', 'published', 'updated')?.textContent)),
    summary: summary ? htmlToText(summary.textContent ?? '') || undefined : undefined,
  }
}

function atomLink(entry: XmlElement, base: string): string | undefined {
  const links = children(entry, 'link')
  const link = links.find((candidate) => (candidate.getAttribute('rel') ?? 'alternate') === 'alternate') ?? links[0]
  return absolute(link?.getAttribute('href') ?? undefined, base)
}

function atomEntry(entry: XmlElement, base: string): FeedItem {
  return {
    title: oneLine(atomText(child(entry, 'title'))),
    link: atomLink(entry, base),
    date: readDate(oneLine(child(entry, 'published', 'updated')?.textContent)),
    summary: atomText(child(entry, 'summary') ?? child(entry, 'content')),
  }
}

/**
 * RSS (0.9x, 1.0 and 2.0) and Atom feeds to their items. The XML is parsed by
 * linkedom's XML mode (htmlparser2), which is forgiving as feed readers must
 * be and expands no DTD entities (no entity-expansion bombs). Undefined when
 * the root is not a feed.
 */
export function readFeed(xml: string, url: string): Feed | undefined {
  const document = new DOMParser().parseFromString(xml, 'text/xml') as unknown as { documentElement: XmlElement | null }
  const root = document.documentElement
  if (!root) return undefined
  const rootName = nameOf(root)
  if (rootName === 'feed' || rootName === 'atom:feed') {
    return {
      kind: 'atom',
      title: oneLine(atomText(child(root, 'title'))),
      link: atomLink(root, url),
      description: atomText(child(root, 'subtitle')),
      items: children(root, 'entry').map((entry) => atomEntry(entry, url)),
    }
  }
  if (rootName === 'rss' || rootName === 'rdf:rdf') {
    const channel = child(root, 'channel')
    // RSS 2.0 puts items inside the channel, RSS 1.0 (RDF) beside it
    const items = [...(channel ? children(channel, 'item') : []), ...children(root, 'item')]
    return {
      kind: 'rss',
      title: channel ? oneLine(child(channel, 'title')?.textContent) : undefined,
      link: channel ? absolute(oneLine(child(channel, 'link')?.textContent), url) : undefined,
      description: channel ? htmlToText(child(channel, 'description')?.textContent ?? '') || undefined : undefined,
      items: items.map((item) => rssItem(item, url)),
    }
  }
  return undefined
}

/** A feed as the model reads it: the feed's title and description, then each item's title, link, date and summary. */
export function renderFeed(feed: Feed, format: Exclude<FetchFormat, 'html'>): string {
  const blocks: string[] = []
  const markdown = format === 'markdown'
  if (feed.title) blocks.push(markdown ? `# ${feed.title}` : feed.title)
  const about = [feed.description, feed.link].filter(Boolean).join('\n')
  if (about) blocks.push(about)
  feed.items.forEach((item, index) => {
    const fields = [item.link ? `link: ${item.link}` : '', item.date ? `date: ${item.date}` : ''].filter(Boolean)
    const title = item.title ?? '(untitled)'
    const lines = markdown ? [`## ${index + 1}. ${title}`, '', ...fields.map((field) => `- ${field}`)] : [`${index + 1}. ${title}`, ...fields]
    if (item.summary) lines.push('', item.summary)
    blocks.push(lines.join('\n'))
  })
  return blocks.join('\n\n')
}

/** Item links listed in `links`, as many as an HTML page lists (all of them are in the text). */
const MAX_FEED_LINKS = 50

/** An XML body: a feed becomes its items; any other XML is returned as sent. */
export function convertXml(input: { text: string; url: string; format: FetchFormat }): ExtractOutput {
  const feed = readFeed(input.text, input.url)
  if (!feed) return { text: input.text, metadata: { sourceFormat: 'xml' }, links: [], extractor: 'none (xml)', warnings: [] }
  const metadata: DocumentMetadata = { sourceFormat: feed.kind, itemCount: feed.items.length }
  if (feed.title) metadata.title = feed.title
  if (feed.description) metadata.excerpt = feed.description.replace(/\s+/g, ' ')
  const links = feed.items.slice(0, MAX_FEED_LINKS).flatMap((item) => (item.link && /^https?:/i.test(item.link) ? [item.title ? { url: item.link, text: item.title } : { url: item.link }] : []))
  if (input.format === 'html') {
    return { text: input.text, metadata, links, extractor: `feed-${feed.kind}`, warnings: ['A feed has no HTML; its XML is returned as sent.'] }
  }
  const warnings = feed.items.length ? [] : [`The ${feed.kind === 'rss' ? 'RSS' : 'Atom'} feed has no items.`]
  return { text: renderFeed(feed, input.format), metadata, links, extractor: `feed-${feed.kind}`, warnings }
}
