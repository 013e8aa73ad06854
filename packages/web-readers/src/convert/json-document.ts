import type { FetchFormat } from 'dsh-web'
import { DocumentError, atUrl } from '../workers/document-error.js'
import type { ExtractOutput } from '../html/extract-html.js'

/** Deeper JSON is refused rather than pretty-printed (JSON.stringify recurses once per level). */
export const MAX_JSON_DEPTH = 512
/** The pretty-printed text may be at most this long: indentation grows with depth. */
export const MAX_PRETTY_CHARS = 16_000_000

interface Frame {
  value: unknown
  depth: number
}

/**
 * Depth and pretty-printed size of a parsed JSON value, walked without
 * recursion; stops at the first limit passed. `prettyChars` is an upper bound
 * of the text JSON.stringify(value, null, 2) makes.
 */
export function measureJson(root: unknown, limits = { depth: MAX_JSON_DEPTH, chars: MAX_PRETTY_CHARS }, sourceChars = 0): { depth: number; prettyChars: number } {
  let depth = 0
  // every value: the source's own characters, plus its indentation, a newline and ": "
  let prettyChars = sourceChars
  const stack: Frame[] = [{ value: root, depth: 1 }]
  while (stack.length) {
    const frame = stack.pop()!
    depth = Math.max(depth, frame.depth)
    prettyChars += 2 * frame.depth + 3
    if (depth > limits.depth || prettyChars > limits.chars) break
    const { value } = frame
    if (value === null || typeof value !== 'object') continue
    prettyChars += 2 * frame.depth + 1 // the closing bracket's line
    const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>)
    for (const child of children) stack.push({ value: child, depth: frame.depth + 1 })
  }
  return { depth, prettyChars }
}

/**
 * The deepest bracket nesting of JSON text, scanned before parsing (strings
 * skipped), so that a body of a million opening brackets is refused in
 * milliseconds instead of being parsed. Stops once past `limit`.
 */
export function scanJsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === 0x5c) index++ // backslash: skip the escaped character
      else if (code === 0x22) inString = false
    } else if (code === 0x22) inString = true
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > deepest) deepest = depth
      if (deepest > limit) break
    } else if (code === 0x5d || code === 0x7d) depth--
  }
  return deepest
}

/**
 * A JSON body, pretty-printed with two spaces in markdown and text (format
 * `html` returns it as sent). A body that is not JSON is returned as sent,
 * saying so; one nested deeper than MAX_JSON_DEPTH or whose pretty text would
 * pass MAX_PRETTY_CHARS is WEB_FETCH_TOO_LARGE, naming the limit and the way
 * to read it as sent: nothing is cut.
 */
export function formatJson(input: { text: string; shownUrl?: string; format: FetchFormat; contentType?: string }): ExtractOutput {
  const metadata = { sourceFormat: 'json' as const }
  const asSent = (warning?: string): ExtractOutput => ({ text: input.text, metadata, links: [], extractor: 'none (json)', warnings: warning ? [warning] : [] })
  if (input.format === 'html') return asSent('JSON has no HTML; it is returned as sent.')
  const where = atUrl(input.shownUrl)
  const tooDeep = () =>
    new DocumentError(
      'WEB_FETCH_TOO_LARGE',
      `The JSON${where} is nested more than ${MAX_JSON_DEPTH} levels deep, too deep to pretty-print; fetch it with format "html" to get it as sent.`,
      { contentType: 'application/json', limit: MAX_JSON_DEPTH },
    )
  if (scanJsonDepth(input.text) > MAX_JSON_DEPTH) throw tooDeep()
  let value: unknown
  try {
    value = JSON.parse(input.text)
  } catch (error) {
    return {
      ...asSent(`The body is labelled ${input.contentType ?? 'JSON'} but is not valid JSON (${(error as Error).message}); it is returned as sent.`),
      metadata: { sourceFormat: 'text' },
      extractor: 'none (text)',
    }
  }
  const { depth, prettyChars } = measureJson(value, { depth: MAX_JSON_DEPTH, chars: MAX_PRETTY_CHARS }, input.text.length)
  if (depth > MAX_JSON_DEPTH) throw tooDeep()
  if (prettyChars > MAX_PRETTY_CHARS) {
    throw new DocumentError(
      'WEB_FETCH_TOO_LARGE',
      `The JSON${where} would be more than ${MAX_PRETTY_CHARS} characters pretty-printed; fetch it with format "html" to get it as sent.`,
      { contentType: 'application/json', limit: MAX_PRETTY_CHARS },
    )
  }
  return { text: JSON.stringify(value, null, 2) ?? '', metadata, links: [], extractor: 'json-pretty', warnings: [] }
}
