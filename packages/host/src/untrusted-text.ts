/**
 * What text from a page or a provider may carry that must never pass for the
 * harness's own words nor reach a terminal as a command: control characters,
 * ANSI/OSC escape sequences, invisible format characters, fence markers. One
 * implementation, used inside the untrusted fence (`fenceUntrusted`) and on
 * every line shown outside it (`cleanUntrustedLine`).
 */

/**
 * Complete escape sequences, 7-bit and 8-bit: CSI (`ESC [` or U+009B,
 * parameters, intermediates, a final byte), the string sequences OSC, DCS,
 * SOS, PM and APC up to their BEL or ST terminator (at most 1024 characters
 * of payload), and the short `ESC x` forms.
 */
const ESCAPE_SEQUENCE =
  /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]{0,1024}(?:\x07|\x1b\\|\x9c)|\x1b[\x20-\x2f]*[\x30-\x7e]/g

/** C0 controls, DEL and the C1 controls. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g

/** The same, but for tab and line feed, which page text may hold. */
const CONTROL_BUT_LAYOUT = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g

/**
 * Characters that draw nothing yet change what is shown or read: soft hyphen,
 * combining grapheme joiner, Arabic letter mark, Hangul and Khmer fillers,
 * Mongolian selectors, zero-width space, joiners and marks (U+200B–U+200F),
 * bidi embeddings and overrides (U+202A–U+202E), word joiner, invisible
 * operators, bidi isolates and the deprecated format characters
 * (U+2060–U+206F), variation selectors, the byte order mark, interlinear
 * annotation, and the tag characters and variation selectors of plane 14
 * (U+E0000–U+E01EF), which can spell out hidden ASCII.
 */
const INVISIBLE =
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e01ef}]/gu

/** A fence marker not defanged yet (defanging twice would change nothing but the looks). */
const FENCE_MARKER = /<(\/?)(untrusted-content)(?!-escaped)/gi

export interface CleanLineOptions {
  /** Characters (code points) kept at most; the rest is replaced by an ellipsis and the count cut. */
  maxLength: number
}

/**
 * One line of text from a page or a provider, safe to show outside the
 * untrusted fence (a title, a URL, a snippet, a provider's error message):
 * escape sequences and invisible format characters removed, whitespace
 * collapsed to single spaces, any other control character shown as its
 * Unicode control picture (ESC as ␛, BEL as ␇; C1 controls as �), fence
 * markers defanged, and the length capped at `maxLength` with a visible
 * `… (N more characters)`.
 */
export function cleanUntrustedLine(text: string, options: CleanLineOptions): string {
  const cleaned = String(text)
    .replace(ESCAPE_SEQUENCE, '')
    .replace(INVISIBLE, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(CONTROL, controlPicture)
  return capLength(defangFenceMarkers(cleaned), options.maxLength)
}

/**
 * Text for inside the fence: kept as it is, line breaks and tabs included,
 * except that CR LF and lone CR become LF and every other control character
 * is shown as its control picture, so an escape sequence arrives as visible
 * text (`␛[31m`) and never as a command to a terminal.
 */
export function showControlCharacters(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL_BUT_LAYOUT, controlPicture)
}

/** `<untrusted-content` and `</untrusted-content`, in any case, become `<untrusted-content-escaped`: no text can open or close a fence. */
export function defangFenceMarkers(text: string): string {
  return text.replace(FENCE_MARKER, '<$1$2-escaped')
}

/** U+2400–U+241F for C0, U+2421 for DEL, the replacement character for C1 (which has no pictures). */
function controlPicture(char: string): string {
  const code = char.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  if (code === 0x7f) return '\u2421'
  return '\ufffd'
}

function capLength(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text
  const points = Array.from(text)
  if (points.length <= maxLength) return text
  const cut = points.length - maxLength
  return `${points.slice(0, maxLength).join('').trimEnd()}… (${cut} more character${cut === 1 ? '' : 's'})`
}
