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
 * Characters that draw nothing yet change what is shown or read: every format
 * character (Unicode category Cf: soft hyphen, Arabic letter mark, zero-width
 * space, joiners and marks, bidi embeddings, overrides and isolates, word
 * joiner, invisible operators, the byte order mark, interlinear annotation,
 * the tag characters of plane 14, which can spell out hidden ASCII) and every
 * default-ignorable code point (combining grapheme joiner, Hangul and Khmer
 * fillers, Mongolian and other variation selectors, the reserved ranges).
 */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu

/** Half a surrogate pair: removing an escape sequence between two halves would join them into a (perhaps invisible) character. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** A fence marker not defanged yet (defanging twice would change nothing but the looks). */
const FENCE_MARKER = /<(\/?)(untrusted-content)(?!-escaped)/gi

export interface CleanLineOptions {
  /** Characters (code points) kept at most; the rest is replaced by an ellipsis and the count cut. */
  maxLength: number
}

/**
 * One line of text from a page or a provider, safe to show outside the
 * untrusted fence (a title, a URL, a snippet, a provider's error message):
 * escape sequences and invisible format characters removed (`removeInvisible`), whitespace
 * collapsed to single spaces, any other control character shown as its
 * Unicode control picture (ESC as ␛, BEL as ␇; C1 controls as �), fence
 * markers defanged, and the length capped at `maxLength` with a visible
 * `… (N more characters)`.
 */
export function cleanUntrustedLine(text: string, options: CleanLineOptions): string {
  const cleaned = removeInvisible(String(text))
    .replace(/\s+/g, ' ')
    .trim()
    .replace(CONTROL, controlPicture)
  return capLength(defangFenceMarkers(cleaned), options.maxLength)
}

/**
 * What draws nothing, removed: half surrogate pairs become U+FFFD, then
 * invisible and format characters and complete escape sequences go. The first
 * step of `cleanUntrustedLine`, and what key scrubbing (dsh-provider-kit)
 * removes before it looks for a key: the cleaning can then never join the
 * parts of a key, echoed with invisible characters or escape sequences
 * between them, into the key. Removing an escape sequence can form no new
 * invisible character (no half pair is left to join); it can form a new
 * escape sequence, whose ESC the cleaning then shows as a control picture.
 */
export function removeInvisible(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd').replace(INVISIBLE, '').replace(ESCAPE_SEQUENCE, '')
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
