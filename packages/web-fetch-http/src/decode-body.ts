/**
 * Bytes to text the way a browser finds the encoding: byte order mark, then
 * the Content-Type charset, then a <meta> in the first 1024 bytes, then UTF-8.
 * Labels are resolved with the WHATWG encoding set (TextDecoder does this).
 */

/** How a body is read: HTML is extracted, PDF read page by page, JSON pretty-printed, XML read as a feed when it is one, text passed through. */
export type ContentKind = 'html' | 'text' | 'json' | 'xml' | 'pdf'

export interface DecodedText {
  text: string
  charset: string
  /** Where the charset came from. */
  source: 'bom' | 'header' | 'meta' | 'default'
}

/** WHATWG windows-1252 for bytes 0x80 to 0x9F (Node 20's TextDecoder maps these as latin1). */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f,
  0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
]

function decodeWindows1252(bytes: Uint8Array): string {
  const chunks: string[] = []
  const size = 8192
  for (let start = 0; start < bytes.length; start += size) {
    const codes = new Array<number>(Math.min(size, bytes.length - start))
    for (let i = 0; i < codes.length; i++) {
      const byte = bytes[start + i]!
      codes[i] = byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_HIGH[byte - 0x80]! : byte
    }
    chunks.push(String.fromCharCode(...codes))
  }
  return chunks.join('')
}

/** The WHATWG name for a label, or undefined when the label is unknown. */
export function resolveEncoding(label: string | undefined): string | undefined {
  if (!label) return undefined
  try {
    const name = new TextDecoder(label.trim()).encoding
    // "replacement" labels (e.g. iso-2022-kr) must not be used to decode.
    return name
  } catch {
    return undefined
  }
}

function bomEncoding(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 }
  return undefined
}

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType)
  return match?.[2]
}

/** A light version of the HTML prescan: <meta charset> and <meta http-equiv content-type> in the first 1024 bytes. */
export function charsetFromMeta(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1')
  const withoutComments = head.replace(/<!--[\s\S]*?-->/g, '')
  for (const tag of withoutComments.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i.exec(tag)
    if (direct && !/http-equiv/i.test(tag)) return direct[1]
    if (/http-equiv\s*=\s*["']?content-type/i.test(tag)) {
      const content = /\bcontent\s*=\s*(["'])(.*?)\1/i.exec(tag)
      const charset = content && /charset\s*=\s*["']?([^"'\s;]+)/i.exec(content[2]!)
      if (charset) return charset[1]
    }
  }
  return undefined
}

function decodeWith(encoding: string, bytes: Uint8Array): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes)
  // Buffer's UTF-8 decoder replaces invalid sequences as the WHATWG decoder does, and is faster.
  if (encoding === 'utf-8') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  return new TextDecoder(encoding, { fatal: false, ignoreBOM: true }).decode(bytes)
}

export function decodeBody(bytes: Uint8Array, contentType: string | undefined, isHtml: boolean): DecodedText {
  const bom = bomEncoding(bytes)
  if (bom) return { text: decodeWith(bom.encoding, bytes.subarray(bom.length)), charset: bom.encoding, source: 'bom' }
  const fromHeader = resolveEncoding(charsetFromContentType(contentType))
  if (fromHeader && fromHeader !== 'replacement') return { text: decodeWith(fromHeader, bytes), charset: fromHeader, source: 'header' }
  if (isHtml) {
    let fromMeta = resolveEncoding(charsetFromMeta(bytes))
    // A meta tag that claims UTF-16 in an ASCII-compatible prescan means UTF-8 (HTML spec).
    if (fromMeta === 'utf-16le' || fromMeta === 'utf-16be') fromMeta = 'utf-8'
    if (fromMeta === 'x-user-defined') fromMeta = 'windows-1252'
    if (fromMeta && fromMeta !== 'replacement') return { text: decodeWith(fromMeta, bytes), charset: fromMeta, source: 'meta' }
  }
  return { text: decodeWith('utf-8', bytes), charset: 'utf-8', source: 'default' }
}

/** For a response without a usable Content-Type: HTML if it starts like HTML, else text. */
export function sniffKind(text: string): ContentKind {
  const head = text.slice(0, 1024).trimStart().toLowerCase()
  return /^(?:<!doctype html|<html|<head|<body|<!--|<meta|<title|<div|<p\b|<script)/.test(head) ? 'html' : 'text'
}
