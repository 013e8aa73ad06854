/**
 * Web text reaches the model inside the seam's untrusted-content fence
 * (`fenceUntrusted` from dsh-web: a fresh nonce per fence, marker-like text
 * inside defanged). This file only knows how to find those fences again, so
 * that a head cut from a long output never leaves one open.
 */

const OPENING = /<untrusted-content id="([^"]+)"/g
const CLOSING = /<\/untrusted-content id="([^"]+)">/g

/** The ids of the fences opened and closed in a text, in order. */
export function fenceIds(text: string): { opened: string[]; closed: string[] } {
  return {
    opened: [...text.matchAll(OPENING)].map((match) => match[1]),
    closed: [...text.matchAll(CLOSING)].map((match) => match[1]),
  }
}

/**
 * Closes every fence a cut left open, so that what follows the cut (the
 * tool's own notice) is never read as part of the page. A marker cut in half
 * at the very end is dropped first.
 */
export function closeOpenFences(text: string): string {
  const lastLine = text.slice(text.lastIndexOf('\n') + 1)
  if (isCutMarker(lastLine)) text = text.slice(0, text.length - lastLine.length)
  const { opened, closed } = fenceIds(text)
  const open = opened.filter((id) => !closed.includes(id))
  if (!open.length) return text
  const closing = open.reverse().map((id) => `</untrusted-content id="${id}">`).join('\n')
  return `${text}${text.endsWith('\n') ? '' : '\n'}${closing}`
}

const MARKER_STARTS = ['<untrusted-content id="', '</untrusted-content id="']

/** A last line that is the start of a marker the cut went through. */
function isCutMarker(line: string): boolean {
  if (!line || line.endsWith('>')) return false
  return MARKER_STARTS.some((start) => start.startsWith(line) || line.startsWith(start))
}
