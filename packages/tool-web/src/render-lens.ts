import type { FetchedDocument, FindResult, QueryResult } from 'dsh-web'
import { cleanUntrustedLine } from 'dsh-host'
import { SNIPPET_MAX } from './line-limits.js'

const plural = (count: number, noun: string, nouns = `${noun}s`) => `${count} ${count === 1 ? noun : nouns}`

/** The model's own words, shown back outside the fence: cleaned like anything quoted. */
const quoted = (words: string) => `"${cleanUntrustedLine(words, { maxLength: SNIPPET_MAX })}"`

const under = (headings: string[]) => (headings.length ? ` under ${headings.join(' › ')}` : '')

/**
 * What the header line says of a `find` or `query` answer instead of the
 * characters shown: how many matches or passages, of how many, and how to
 * go on. Only figures and the caller's own words: the page's are in the fence.
 */
export function lensSummary(document: FetchedDocument): string | undefined {
  const { find, query } = document
  const of = `the document's ${document.totalChars} characters`
  if (find) {
    const where = find.from > 0 ? `${of} from offset ${find.from} on` : of
    const ignored = document.format === 'markdown' ? 'case, spacing and inline markup ignored, accents kept' : 'case and spacing ignored, accents kept'
    if (find.total === 0) return `No match of ${quoted(find.phrase)} in ${where} (${ignored}).`
    const shown = find.matches.length < find.total
      ? `; the first ${find.matches.length} are shown: call web_fetch again with the same url and find and offset ${find.nextOffset} for the rest`
      : ''
    return `${plural(find.total, 'match', 'matches')} of ${quoted(find.phrase)} in ${where} (${ignored}), in page order${shown}. Read the page from a match with web_fetch, the same url and its offset (without find).`
  }
  if (query) {
    if (!query.passages.length) return `No passage of ${of} shares a word with ${quoted(query.query)}. ${query.method}`
    const chars = query.passages.reduce((sum, passage) => sum + passage.text.length, 0)
    return `Passages for ${quoted(query.query)}: ${query.passages.length} shown (${chars} characters), best first; ${query.matchingBlocks} of the page's ${plural(query.blocks, 'block')} share words with it (the document has ${document.totalChars} characters). ${query.method} Read on from a passage with web_fetch, the same url and its offset (without query); the outline's offsets lead to the other parts.`
  }
  return undefined
}

/** The page text of a `find` or `query` answer, for the fence: each match or passage with its offset and heading path, then the outline. */
export function lensText(document: FetchedDocument): string | undefined {
  if (document.find) return findText(document.find)
  if (document.query) return queryText(document.query)
  return undefined
}

function findText(find: FindResult): string | undefined {
  if (!find.matches.length) return undefined
  return find.matches
    .map((match, index) => {
      const before = match.before ? `…${match.before}` : ''
      const after = match.after ? `${match.after}…` : ''
      return `Match ${index + 1} at offset ${match.offset}${under(match.headings)}:\n${before}⟦${match.text}⟧${after}`
    })
    .join('\n\n')
}

function queryText(query: QueryResult): string | undefined {
  const parts = query.passages.map((passage, index) => {
    const cut = passage.cut ? `; cut at max_chars, it goes on at offset ${passage.offset + passage.text.length}` : ''
    return `Passage ${index + 1} at offset ${passage.offset}, ${passage.text.length} characters${under(passage.headings)} (score ${passage.score}${cut}):\n${passage.text}`
  })
  if (query.outlineTotal) {
    const shown = query.outline.length < query.outlineTotal ? `, ${query.outline.length} of them shown (the upper levels)` : ''
    const lines = query.outline.map((heading) => `${'  '.repeat(heading.level - 1)}${heading.title} (offset ${heading.offset})`)
    parts.push(`Outline of the page (${plural(query.outlineTotal, 'heading')}${shown}):\n${lines.join('\n')}`)
  } else parts.push('Outline of the page: it has no headings (plain text marks none; markdown and html show them).')
  return parts.join('\n\n')
}
