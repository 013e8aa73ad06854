import { type FindMatch, type FindResult, WebError } from 'dsh-web'
import type { HeadingPaths } from './page-outline.js'

/** Matches a find result shows at most; `total` counts them all and `nextOffset` says where to search on. */
export const FIND_MATCHES_MAX = 50
/** Characters of context on each side of a match at most. */
const CONTEXT_MAX = 80

/**
 * A text folded for a literal search: lowercase, every run of whitespace as
 * one space, accents kept; in markdown, inline markup left out as well
 * (emphasis marks, code ticks, link brackets and targets), so a phrase
 * matches the words the reader sees. `toOriginal` maps a position of the
 * folded text back to the original; only runs and markup change lengths,
 * and they are few, so the map holds one entry per change instead of one
 * per character.
 */
class FoldedText {
  readonly folded: string
  /** Folded positions where the map to the original moves on, and the original position there. */
  private readonly foldedAt: number[] = [0]
  private readonly originalAt: number[] = [0]

  constructor(text: string, markdown: boolean) {
    let removed = 0
    // Runs of two or more (and markup) are the only ones that move positions; a single whitespace character other than a space becomes
    // one in place (a pattern that matched every single space would cost a replacement for each word of the page).
    this.folded = lowerSameLength(text)
      .replace(markdown ? MARKDOWN_SHIFTS : WHITESPACE_RUNS, (found: string, offset: number) => {
        const replacement = /^\s/.test(found) ? ' ' : ''
        removed += found.length - replacement.length
        this.foldedAt.push(offset + found.length - removed)
        this.originalAt.push(offset + found.length)
        return replacement
      })
      .replace(/[^\S ]/g, ' ')
  }

  toOriginal(position: number): number {
    const entry = lastAtOrBefore(this.foldedAt, position)
    return this.originalAt[entry] + (position - this.foldedAt[entry])
  }

  toFolded(position: number): number {
    const entry = lastAtOrBefore(this.originalAt, position)
    const linear = this.foldedAt[entry] + (position - this.originalAt[entry])
    // Inside a whitespace run the linear map would run past the run's one space: it stops at the word after it.
    return entry + 1 < this.foldedAt.length ? Math.min(linear, this.foldedAt[entry + 1]) : linear
  }
}

const WHITESPACE_RUNS = /\s\s+/g
/** Whitespace runs, and markdown's inline markup: a link's target, its brackets, emphasis stars, code ticks, underscores not inside a word. */
const MARKDOWN_SHIFTS = /\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*\)|!?\[|\]|\*+|`+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])|\s\s+/gu

/** The index of the last element of an ascending array that is at most `value` (0 when none is). */
export function lastAtOrBefore(sorted: number[], value: number): number {
  let low = 0
  let high = sorted.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (sorted[middle] <= value) low = middle
    else high = middle - 1
  }
  return low
}

/**
 * Lowercase with every character keeping its length, so that positions
 * stay those of the original: the rare character whose lowercase is longer
 * (İ) becomes its one-character fold (i), or stays as it is.
 */
function lowerSameLength(text: string): string {
  const lower = text.replace(/\u0130/g, 'i').toLowerCase()
  if (lower.length === text.length) return lower
  let out = ''
  for (const char of text) {
    const folded = char.toLowerCase()
    out += folded.length === char.length ? folded : char
  }
  return out
}

/** The phrase as it is searched: trimmed, whitespace runs as one space (and, folded, lowercase). */
export function searchedPhrase(phrase: string): string {
  return phrase.replace(/\s+/g, ' ').trim()
}

export interface FindOptions {
  /** Markdown text: its inline markup is left out of the search, in the page and in the phrase alike. */
  markdown: boolean
  /** Where the search starts in the text. */
  from: number
  /** Where it ends (exclusive; the end of the pages asked for): a match must lie wholly before it. */
  to?: number
  /** Characters of match text and context the result holds at most (the first match is always shown). */
  maxChars: number
  paths: HeadingPaths
}

/**
 * Every place the phrase occurs in the text from `from` on, in document
 * order, case- and whitespace-insensitive with accents kept: the first
 * FIND_MATCHES_MAX of them with a short context and their heading path,
 * within `maxChars`; `total` counts them all, and `nextOffset` is where the
 * first one not shown starts.
 */
export function findInPage(text: string, phrase: string, options: FindOptions): FindResult {
  const searched = searchedPhrase(phrase)
  const needle = new FoldedText(searched, options.markdown).folded.trim()
  if (!needle) {
    throw new WebError('INVALID_ARGUMENT', `find ${JSON.stringify(searched)} is only markdown markup, which the search leaves out; give the words you look for, or fetch with format text to find markup literally.`, {
      details: { argument: 'find' },
    })
  }
  const page = new FoldedText(text, options.markdown)
  const starts: number[] = []
  const to = options.to ?? text.length
  for (let at = page.folded.indexOf(needle, page.toFolded(options.from)); at >= 0; at = page.folded.indexOf(needle, at + needle.length)) {
    if (page.toOriginal(at + needle.length - 1) + 1 > to) break
    starts.push(at)
  }
  // The context shrinks with the number of matches so that those shown fit in maxChars.
  const perMatch = Math.floor(options.maxChars / Math.max(1, Math.min(starts.length, FIND_MATCHES_MAX)))
  const contextChars = Math.max(0, Math.min(CONTEXT_MAX, Math.floor((perMatch - needle.length) / 2) - 20))
  const matches: FindMatch[] = []
  let used = 0
  for (const at of starts) {
    if (matches.length === FIND_MATCHES_MAX) break
    const offset = page.toOriginal(at)
    const end = page.toOriginal(at + needle.length - 1) + 1
    const match: FindMatch = {
      offset,
      length: end - offset,
      text: text.slice(offset, end),
      before: contextBefore(text, offset, contextChars),
      after: contextAfter(text, end, contextChars),
      headings: options.paths.at(offset),
    }
    const cost = match.text.length + match.before.length + match.after.length + match.headings.join(' › ').length
    if (matches.length && used + cost > options.maxChars) break
    used += cost
    matches.push(match)
  }
  const result: FindResult = { phrase: searched, from: options.from, total: starts.length, matches }
  if (matches.length < starts.length) result.nextOffset = page.toOriginal(starts[matches.length])
  return result
}

/** Up to `chars` characters before `offset`, starting on a word, whitespace runs as one space. */
function contextBefore(text: string, offset: number, chars: number): string {
  if (chars === 0) return ''
  const start = Math.max(0, offset - chars)
  let part = text.slice(start, offset)
  // Within the match's own block: a blank line before it ends the context.
  const block = part.search(/\n[ \t]*\n(?![\s\S]*\n[ \t]*\n)/)
  if (block >= 0) part = part.slice(block)
  else if (start > 0) part = part.replace(/^\S*\s/, '')
  if (/^[\udc00-\udfff]/.test(part)) part = part.slice(1)
  return part.replace(/\s+/g, ' ').trimStart()
}

/** Up to `chars` characters from `end`, ending on a word, whitespace runs as one space. */
function contextAfter(text: string, end: number, chars: number): string {
  if (chars === 0) return ''
  const stop = Math.min(text.length, end + chars)
  let part = text.slice(end, stop)
  const block = part.search(/\n[ \t]*\n/)
  if (block >= 0) part = part.slice(0, block)
  else if (stop < text.length) part = part.replace(/\s\S*$/, '')
  if (/[\ud800-\udbff]$/.test(part)) part = part.slice(0, -1)
  return part.replace(/\s+/g, ' ').trimEnd()
}
