import type { ArtifactRef } from './artifact.js'

/**
 * The one output limiter of every tool (web_search, web_fetch, run_code): an
 * output over the tool's inline threshold goes whole to an artifact, and the
 * model gets a head of it followed by the host's notice (where the file is,
 * what was cut). The head is cut from text that holds untrusted-content
 * fences (`fenceUntrusted`), so every fence the cut went through is closed
 * before the notice: the notice must never read as part of the page.
 */

export interface OutputLimitOptions {
  /** Characters of model-facing text allowed inline. */
  threshold: number
  /**
   * Writes the complete output and says where: the tool's own writer, so a
   * failure keeps the tool's error code (WEB_ARTIFACT_WRITE_FAILED for the
   * web tools, the contract's ArtifactWriteError for run_code).
   */
  save(content: string): Promise<ArtifactRef>
}

export interface LimitedOutput {
  content: string
  /** Set when the complete output went to a file. */
  artifact?: ArtifactRef
}

/** How much of an over-threshold output the model sees inline. */
export function headLength(threshold: number): number {
  return Math.max(200, Math.min(4_000, Math.floor(threshold / 4)))
}

/**
 * Returns the content as it is when it fits the threshold. Above it, saves
 * the complete content and returns a head of at most `headLength(threshold)`
 * characters (cut at a line end when one is in its second half), every fence
 * closed, then the notice with the file's path, size and SHA-256.
 */
export async function limitOutput(content: string, options: OutputLimitOptions): Promise<LimitedOutput> {
  if (content.length <= options.threshold) return { content }
  const artifact = await options.save(content)
  return { content: headWithNotice(content, headLength(options.threshold), { threshold: options.threshold, artifact }), artifact }
}

/**
 * The head of `content` cut at `limit` characters, every fence closed, and
 * the host's notice after it, outside every fence. Exported for the test that
 * cuts at every length.
 */
export function headWithNotice(content: string, limit: number, about: { threshold: number; artifact: ArtifactRef }): string {
  const { head, shown } = cutFenced(content, limit)
  const { artifact } = about
  const notice =
    `[The complete output is ${content.length} characters, above the inline limit of ${about.threshold}, ` +
    `so only its first ${shown} characters are shown above. Nothing was left out of the file: ` +
    `${artifact.path} (${artifact.bytes} bytes, SHA-256 ${artifact.sha256}).]`
  return `${head}\n\n${notice}`
}

/**
 * The first `limit` characters of `content` (back to the last line end when
 * that is in the second half; never half a surrogate pair), with a marker or
 * marker-like text cut in half at the end dropped, and every fence left open
 * closed, innermost first. `shown` counts the characters of `content` kept.
 */
export function cutFenced(content: string, limit: number): { head: string; shown: number } {
  let cut = Math.max(0, Math.min(limit, content.length))
  if (cut < content.length) {
    const lineEnd = content.lastIndexOf('\n', cut)
    if (lineEnd >= cut / 2 && lineEnd > 0) cut = lineEnd
    else if (isHighSurrogate(content.charCodeAt(cut - 1))) cut--
  }
  let head = content.slice(0, cut)
  head = head.slice(0, head.length - cutMarkerLength(head))
  return { head: closeOpenFences(head), shown: head.length }
}

const OPENING = /<untrusted-content id="([^"]+)"[^>\n]*>/g
const CLOSING = /<\/untrusted-content id="([^"]+)">/g

/** The ids of the fences opened and closed in a text, in order. */
function fenceIds(text: string): { opened: string[]; closed: string[] } {
  return {
    opened: [...text.matchAll(OPENING)].map((match) => match[1]),
    closed: [...text.matchAll(CLOSING)].map((match) => match[1]),
  }
}

/** Closes every fence left open at the end of `text`, innermost first, each on its own line. */
function closeOpenFences(text: string): string {
  const { opened, closed } = fenceIds(text)
  const open = opened.filter((id) => !closed.includes(id))
  if (!open.length) return text
  const closing = open.reverse().map((id) => `</untrusted-content id="${id}">`).join('\n')
  return `${text}${text.endsWith('\n') ? '' : '\n'}${closing}`
}

/** Every spelling a marker, real or defanged (`<untrusted-content-escaped`), starts with. */
const MARKER_NAMES = ['<untrusted-content', '</untrusted-content']

/**
 * How many characters at the end of a head are a marker the cut went
 * through: a real marker without its `>`, or the start of a marker's name
 * (`<untrus`, or a defanged `<untrusted-content-escaped` cut back to
 * `<untrusted-content`), which would otherwise read as a tag once the
 * closing marker follows it.
 */
function cutMarkerLength(head: string): number {
  const start = head.lastIndexOf('<')
  if (start < 0) return 0
  const length = head.length - start
  // Markers match in any case; the lower-cased copy is only compared (lower-casing may change a length).
  const tail = head.slice(start).toLowerCase()
  if (tail.includes('>') || tail.includes('\n')) return 0
  const cut = MARKER_NAMES.some((name) => name.startsWith(tail) || (tail.startsWith(name) && !tail.startsWith(`${name}-escaped`)))
  return cut ? length : 0
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
