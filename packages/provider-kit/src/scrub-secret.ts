/**
 * A provider may echo the key it was sent: whole, cut, or encoded. Whatever
 * the provider wrote passes through here before anyone sees it (error
 * messages, error details, and every string of a successful answer), so the
 * key reaches no output, session log or artifact in any of these forms.
 */

import { cleanUntrustedLine, removeInvisible } from 'dsh-host'

export const REDACTED = '[redacted]'

/** Keys shorter than this are not scrubbed: three characters match ordinary text. */
const MIN_SECRET_LENGTH = 4

/** Runs of the key shorter than this are not a partial echo. */
const MIN_RUN = 8

/** Only keys longer than this have their partial runs scrubbed. */
const MIN_LENGTH_FOR_RUNS = 12

/**
 * Replaces the key in `text` with `[redacted]`, in each of these forms:
 * - the key itself, and its JSON-escaped and URL-encoded (`encodeURIComponent`,
 *   upper- or lower-case escapes) forms;
 * - its base64 and base64url encodings, whole when the key was encoded on its
 *   own, and at each of the three alignments it can have inside a longer
 *   encoded string (as in `Basic base64(user:key)`) the characters that hold
 *   only the key's bits, when that run is at least 8 characters;
 * - for a key longer than 12 characters, every run of 8 or more consecutive
 *   characters of the key (a cut or partly masked echo), unless the run lies
 *   wholly inside the key's public word prefix (`sk-`, `sk-proj-`: lower-case
 *   words each followed by `-` or `_`), which ordinary text names too.
 * Matching is case-sensitive, except for a key whose part after that prefix is
 * hexadecimal: hex is the same key in either case.
 */
export function scrubSecret(text: string, secret: string): string {
  return secretScrubber(secret)(text)
}

/**
 * Provider text quoted in a message or a detail: the key scrubbed, then one
 * clean line (`cleanUntrustedLine`: no control or escape sequences, no
 * invisible characters), cut visibly past `maxLength`.
 */
export function quoteProviderText(text: string, secret: string, maxLength: number): string {
  return cleanUntrustedLine(scrubSecret(text, secret), { maxLength })
}

/**
 * Every string inside a JSON-like value (objects, arrays), scrubbed; a new
 * value, the input untouched. Walked with an explicit stack, so no depth of
 * nesting can overflow it (the wire refuses answers past `MAX_ANSWER_DEPTH`
 * before this runs, but the walk does not rely on it).
 */
export function scrubSecretDeep<T>(value: T, secret: string): T {
  const scrub = secretScrubber(secret)
  const copies = new Map<object, object>()
  const pending: Array<[source: object, copy: object]> = []
  const copyOf = (item: unknown): unknown => {
    if (typeof item === 'string') return scrub(item)
    if (item === null || typeof item !== 'object') return item
    let copy = copies.get(item)
    if (!copy) {
      copy = Array.isArray(item) ? new Array(item.length) : {}
      copies.set(item, copy)
      pending.push([item, copy])
    }
    return copy
  }
  const root = copyOf(value)
  while (pending.length) {
    const [source, copy] = pending.pop()!
    // defineProperty, not assignment: a `__proto__` key stays a key, as Object.fromEntries keeps it.
    for (const [key, entry] of Object.entries(source)) Object.defineProperty(copy, key, { value: copyOf(entry), enumerable: true, writable: true, configurable: true })
  }
  return root as T
}

/** The message, the stack (which repeats the message) and every string detail of an error, scrubbed in place; the error is returned. */
export function scrubSecretFromError<E>(error: E, secret: string): E {
  if (!(error instanceof Error)) return error
  const scrub = secretScrubber(secret)
  error.message = scrub(error.message)
  if (typeof error.stack === 'string') error.stack = scrub(error.stack)
  const details = (error as { details?: unknown }).details
  if (details !== null && typeof details === 'object') {
    for (const [key, value] of Object.entries(details)) if (typeof value === 'string') (details as Record<string, unknown>)[key] = scrub(value)
  }
  return error
}

/**
 * Builds the scrubbing function of one key (its forms are worked out once).
 * The text is searched as it is, then with what draws nothing removed
 * (`removeInvisible`, the first step of the contract's line cleaning): a key
 * echoed with zero-width, bidi or other format characters or escape
 * sequences between its characters is found there, and the text comes back
 * with them removed and the key scrubbed; a text with no key in either comes
 * back as it is.
 */
export function secretScrubber(secret: string): (text: string) => string {
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) return (text) => text
  const prefixLength = /^(?:[a-z]+[-_])*/.exec(secret)![0].length
  const ignoreCase = /^[0-9a-f]+$/i.test(secret.slice(prefixLength))
  const plain = [secret, JSON.stringify(secret).slice(1, -1), ...percentEncodings(secret)]
  const encoded = base64Forms(secret).filter((form) => form.length >= MIN_RUN)
  const exact = [new RegExp(alternation(plain), ignoreCase ? 'gi' : 'g'), new RegExp(alternation(escapedForms(secret)), 'gi')]
  if (encoded.length) exact.push(new RegExp(alternation(encoded), 'g'))
  const scrubForms = (text: string): string => {
    let scrubbed = text
    for (const pattern of exact) scrubbed = scrubbed.replace(pattern, REDACTED)
    if (secret.length > MIN_LENGTH_FOR_RUNS) scrubbed = scrubRuns(scrubbed, secret, prefixLength, ignoreCase)
    return scrubbed
  }
  return (text) => {
    if (typeof text !== 'string' || !text) return text
    const direct = scrubForms(text)
    const visible = removeInvisible(direct)
    if (visible === direct) return direct
    const scrubbed = scrubForms(visible)
    return scrubbed === visible ? direct : scrubbed
  }
}

/**
 * The key written byte by byte, in any case: its UTF-8 as hex, every byte
 * percent-encoded (`%73%6B...`, as an over-eager encoder writes it), and every
 * character as a JSON `\u` escape.
 */
function escapedForms(secret: string): string[] {
  const hex = Buffer.from(secret, 'utf8').toString('hex')
  const unicode = Array.from({ length: secret.length }, (_, index) => `\\u${secret.charCodeAt(index).toString(16).padStart(4, '0')}`).join('')
  return [hex, hex.replace(/../g, '%$&'), unicode]
}

/** `encodeURIComponent` of the key with upper- and lower-case escapes. */
function percentEncodings(secret: string): string[] {
  const upper = encodeURIComponent(secret)
  return [upper, upper.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())]
}

/**
 * The characters of the key's base64 (and base64url) encoding that do not
 * depend on what surrounds it, for the key starting at byte 0, 1 and 2 of a
 * 3-byte group.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  // The whole encoding first, padding included, for the key encoded on its own.
  const forms: string[] = [bytes.toString('base64'), bytes.toString('base64url')]
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes])
    const encoded = padded.toString('base64')
    // Characters wholly made of the key's bits: skip those the leading pad bytes touch, stop before the last partial one.
    const start = Math.ceil((offset * 8) / 6)
    const end = Math.floor((padded.length * 8) / 6)
    const core = encoded.slice(start, end)
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  return [...new Set(forms)]
}

function alternation(forms: string[]): string {
  return [...new Set(forms)]
    .sort((a, b) => b.length - a.length)
    .map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|')
}

/** Every run of MIN_RUN or more characters of the key, extended as far as it matches, that reaches past the public prefix. */
function scrubRuns(text: string, secret: string, prefixLength: number, ignoreCase: boolean): string {
  const haystack = ignoreCase ? asciiLowerCase(text) : text
  const needle = ignoreCase ? asciiLowerCase(secret) : secret
  const ranges: Array<[number, number]> = []
  for (let position = 0; position + MIN_RUN <= needle.length; position++) {
    const window = needle.slice(position, position + MIN_RUN)
    for (let found = haystack.indexOf(window); found !== -1; found = haystack.indexOf(window, found + 1)) {
      let before = 0
      while (found - before > 0 && position - before > 0 && haystack[found - before - 1] === needle[position - before - 1]) before++
      let after = MIN_RUN
      while (found + after < haystack.length && position + after < needle.length && haystack[found + after] === needle[position + after]) after++
      if (position + after > prefixLength) ranges.push([found - before, found + after])
    }
  }
  if (!ranges.length) return text
  ranges.sort((a, b) => a[0] - b[0])
  let result = ''
  let cursor = 0
  for (const [start, end] of ranges) {
    if (end <= cursor) continue
    result += text.slice(cursor, Math.max(cursor, start)) + (start >= cursor ? REDACTED : '')
    cursor = end
  }
  return result + text.slice(cursor)
}

/** Lower-cases A–Z only, so that every index still points at the same character. */
function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (char) => char.toLowerCase())
}
