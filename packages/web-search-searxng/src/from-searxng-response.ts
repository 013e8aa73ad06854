import { WebError } from 'dsh-web'
import type { Citation, SearchAnswer, SearchSource, SearchUsage } from 'dsh-web'
import { isObject } from 'dsh-provider-kit'
import {
  type SearxngAnswer,
  type SearxngInfobox,
  type SearxngResult,
  type SearxngSearchResponse,
  unresponsiveEngines,
} from './searxng-search-api.js'

export interface SearxngMappedResult {
  queries: string[]
  sources: SearchSource[]
  answer?: SearchAnswer
  usage: SearchUsage
  warnings: string[]
}

/** Reads the pages of one search, in order, into one neutral result. */
export interface SearxngPageCollector {
  /** Reads one page; returns how many sources it added (URLs not seen on an earlier page). */
  add(response: SearxngSearchResponse): number
  /** Sources gathered so far, before the maxResults cut. */
  readonly size: number
  /** Page `pageno` failed after earlier pages answered: the results stand, with a warning. */
  pageFailed(pageno: number, error: WebError): void
  /**
   * The result: sources unique by URL in SearXNG's order, cut to maxResults
   * (said in a warning), the instant answers and infoboxes as one answer no
   * model wrote, unresponsive engines as a warning. Nothing at all and
   * engines that did not answer: WEB_SEARCH_FAILED naming them.
   */
  finish(sentQuery: string): SearxngMappedResult
}

/** A piece of the instant answer: its text and the URLs it came with. */
interface AnswerPart {
  text: string
  links: Array<{ url: string; title?: string }>
}

export function collectSearxngPages(options: { providerId: string; maxResults: number }): SearxngPageCollector {
  const sources: SearchSource[] = []
  const seen = new Set<string>()
  const parts: AnswerPart[] = []
  const partTexts = new Set<string>()
  const unread: string[] = []
  const unresponsive = new Map<string, [string, string]>()
  const warnings: string[] = []
  let withoutUrl = 0
  let pages = 0
  let firstQuery: string | undefined

  function addPart(part: AnswerPart | undefined) {
    if (!part || partTexts.has(part.text)) return
    partTexts.add(part.text)
    parts.push(part)
  }

  return {
    add(response) {
      pages++
      if (firstQuery === undefined && typeof response.query === 'string' && response.query.trim()) firstQuery = response.query
      let added = 0
      for (const result of response.results) {
        const source = toSource(result)
        if (!source) {
          withoutUrl++
          continue
        }
        if (seen.has(source.url)) continue
        seen.add(source.url)
        sources.push(source)
        added++
      }
      for (const answer of Array.isArray(response.answers) ? response.answers : []) {
        const part = fromAnswer(answer)
        if (typeof part === 'string') {
          if (!unread.includes(part)) unread.push(part)
        } else addPart(part)
      }
      for (const box of Array.isArray(response.infoboxes) ? response.infoboxes : []) if (isObject(box)) addPart(fromInfobox(box))
      for (const [engine, reason] of unresponsiveEngines(response)) unresponsive.set(`${engine}\u0000${reason}`, [engine, reason])
      return added
    },
    get size() {
      return sources.length
    },
    pageFailed(pageno, error) {
      warnings.push(`Page ${pageno} of the results failed ([${error.code}] ${error.message.replace(/\.$/, '')}); the results are those of the earlier pages.`)
    },
    finish(sentQuery) {
      const answer = toAnswer(parts)
      const engines = [...unresponsive.values()]
      if (!sources.length && !answer && engines.length) {
        throw new WebError(
          'WEB_SEARCH_FAILED',
          `SearXNG returned no results, and ${engines.length === 1 ? 'the engine' : `${engines.length} engines`} it asked did not answer: ${describeEngines(engines)}. ` +
            'Check those engines on the instance (or name working ones in `engines` of the searxng row); a retry may help when they timed out.',
          { details: { providerId: options.providerId, providerCode: 'engines_unresponsive', engines: engines.map(([engine]) => engine) }, retryable: true },
        )
      }
      const kept = sources.slice(0, options.maxResults)
      const notes: string[] = []
      if (engines.length) {
        notes.push(`${engines.length === 1 ? '1 engine' : `${engines.length} engines`} did not answer: ${describeEngines(engines)}; the results are from the others.`)
      }
      if (sources.length > kept.length) notes.push(`SearXNG returned ${sources.length} results; the first ${kept.length} are listed (maxResults of the searxng row).`)
      if (withoutUrl) notes.push(`${withoutUrl} result${withoutUrl === 1 ? '' : 's'} without a URL left out (nothing to cite or fetch).`)
      if (unread.length) notes.push(`Instant answers of a kind this provider does not read were left out (${unread.join(', ')}).`)
      if (!kept.length) notes.push('The web search returned no results.')
      const mapped: SearxngMappedResult = { queries: [firstQuery ?? sentQuery], sources: kept, usage: { searchRequests: pages }, warnings: [...notes, ...warnings] }
      if (answer) mapped.answer = answer
      return mapped
    },
  }
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined
}

/** A result with a URL as a neutral source; undefined without one. */
function toSource(result: SearxngResult): SearchSource | undefined {
  const url = nonEmpty(result.url)?.trim()
  if (!url) return undefined
  const source: SearchSource = { url }
  const title = nonEmpty(result.title)
  if (title) source.title = title
  const snippet = nonEmpty(result.content)
  if (snippet) source.snippet = snippet
  const published = nonEmpty(result.publishedDate)
  if (published) source.publishedDate = published
  const engines = Array.isArray(result.engines) ? result.engines.filter((engine): engine is string => !!nonEmpty(engine)) : []
  if (!engines.length && nonEmpty(result.engine)) engines.push(result.engine!)
  if (engines.length) source.engines = engines
  return source
}

function httpUrl(value: unknown): string | undefined {
  const text = nonEmpty(value)?.trim()
  return text && /^https?:\/\//i.test(text) ? text : undefined
}

/**
 * One entry of `answers`: a string (older SearXNG), an object with `answer`,
 * or translations. Any other kind comes back as its description, for the
 * warning that says it was left out.
 */
function fromAnswer(answer: SearxngAnswer): AnswerPart | string | undefined {
  if (typeof answer === 'string') return answer.trim() ? { text: answer.trim(), links: [] } : undefined
  if (!isObject(answer)) return undefined
  const url = httpUrl(answer.url)
  const links = url ? [{ url }] : []
  const text = nonEmpty(answer.answer)
  if (text) return { text: text.trim(), links }
  if (Array.isArray(answer.translations)) {
    const texts = answer.translations.map((entry) => (isObject(entry) ? nonEmpty(entry.text)?.trim() : undefined)).filter((entry): entry is string => !!entry)
    if (texts.length) return { text: texts.join('; '), links }
  }
  const kind = nonEmpty(answer.template) ?? 'no template'
  const engine = nonEmpty(answer.engine)
  return engine ? `${kind} from ${engine}` : kind
}

/** An infobox as text: its title, content and attributes; its URLs (or its id, when that is one) as the links. */
function fromInfobox(box: SearxngInfobox): AnswerPart | undefined {
  const lines: string[] = []
  const title = nonEmpty(box.infobox)?.trim()
  if (title) lines.push(title)
  const content = nonEmpty(box.content)?.trim()
  if (content) lines.push(content)
  for (const attribute of Array.isArray(box.attributes) ? box.attributes : []) {
    if (!isObject(attribute)) continue
    const label = nonEmpty(attribute.label)?.trim()
    const value = typeof attribute.value === 'number' ? String(attribute.value) : nonEmpty(attribute.value)?.trim()
    if (label && value) lines.push(`${label}: ${value}`)
  }
  if (!lines.length) return undefined
  const links: AnswerPart['links'] = []
  for (const entry of Array.isArray(box.urls) ? box.urls : []) {
    const url = isObject(entry) ? httpUrl(entry.url) : undefined
    if (!url || links.some((link) => link.url === url)) continue
    const linkTitle = nonEmpty(entry.title)?.trim()
    links.push(linkTitle ? { url, title: linkTitle } : { url })
  }
  const id = httpUrl(box.id)
  if (!links.length && id) links.push({ url: id })
  return { text: lines.join('\n'), links }
}

/** The parts joined by blank lines; each link cites the character range of its part. Never model-written. */
function toAnswer(parts: AnswerPart[]): SearchAnswer | undefined {
  if (!parts.length) return undefined
  let text = ''
  const citations: Citation[] = []
  for (const part of parts) {
    if (text) text += '\n\n'
    const start = text.length
    text += part.text
    for (const link of part.links) citations.push(link.title ? { url: link.url, title: link.title, start, end: text.length } : { url: link.url, start, end: text.length })
  }
  return { text, citations, modelWritten: false }
}

function describeEngines(engines: Array<[string, string]>): string {
  return engines.map(([engine, reason]) => (reason ? `${engine} (${reason})` : engine)).join(', ')
}
