import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib'
import { DocumentError } from '../workers/document-error.js'

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

/** The content encodings of a Content-Encoding header, lower case, in the order they were applied, without identity. */
export function contentEncodings(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part && part !== 'identity')
}

/** The encodings read here and in read-body.ts. */
export const DECODABLE_ENCODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br'])

/** Deflate in its zlib wrapper (RFC 1950) rather than raw (RFC 1951): browsers accept both under "deflate". */
export function isZlibWrapped(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0
}

/**
 * One encoding undone in one call, its output at most `maxOutputLength`
 * bytes (zlib stops there with ERR_BUFFER_TOO_LARGE, it never allocates
 * more). With `partial`, a cut-off input gives the output so far; without,
 * the flush is the one read-body.ts streams with (gzip and br tolerate a
 * cut-off end, deflate does not).
 */
function inflateOnce(bytes: Buffer, encoding: string, maxOutputLength: number, partial: boolean): Buffer {
  const sync = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength }
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(bytes, sync)
    case 'deflate':
      return (isZlibWrapped(bytes) ? inflateSync : inflateRawSync)(bytes, partial ? sync : { maxOutputLength })
    case 'br':
      return brotliDecompressSync(bytes, { finishFlush: constants.BROTLI_OPERATION_FLUSH, maxOutputLength })
    default:
      throw new Error(`the content encoding "${encoding}" cannot be decoded`)
  }
}

const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** What a body over the byte cap is told (WEB_FETCH_TOO_LARGE), here and in read-body.ts. */
export function tooLargeMessage(maxBytes: number, decompressed: boolean): string {
  return `The response is larger than the limit of ${maxBytes} bytes${decompressed ? ' (after decompression)' : ''}; it was not read to the end. The limit is maxBytes of the web-fetch-http row (an operator's setting); read another source, or ask the operator to raise it.`
}

/** What a body that does not decompress is told (WEB_FETCH_FAILED), here and in read-body.ts. */
export function undecodableMessage(encodings: string[], error: unknown): string {
  return `The ${encodings.join(', ')}-encoded body could not be decompressed (${(error as Error)?.message ?? error}).`
}

/**
 * A body's content encodings undone in an extraction worker, the output
 * capped at `maxBytes` as read-body.ts caps it while streaming: over the cap
 * is WEB_FETCH_TOO_LARGE, bytes that do not decompress WEB_FETCH_FAILED, with
 * the messages read-body.ts gives.
 */
export function inflateBody(bytes: Uint8Array, encodings: string[], maxBytes: number): Buffer {
  let decoded = view(bytes)
  try {
    for (const encoding of [...encodings].reverse()) decoded = inflateOnce(decoded, encoding, maxBytes, false)
  } catch (error) {
    if ((error as { code?: string })?.code === 'ERR_BUFFER_TOO_LARGE') {
      throw new DocumentError('WEB_FETCH_TOO_LARGE', tooLargeMessage(maxBytes, true), { limit: maxBytes })
    }
    throw new DocumentError('WEB_FETCH_FAILED', undecodableMessage(encodings, error))
  }
  return decoded
}

/** Compressed bytes the prefix is decoded from: deflate expands them at most about 1032 times (gzip and zlib alike). */
const PREFIX_INPUT_BYTES = 1024

/**
 * The first `length` decoded bytes of a body with one content encoding, for
 * sniffing its type before the worker inflates the rest. Bounded work: only
 * the first KB of compressed bytes is read, its output capped at what deflate
 * can make of it; undefined when that is not enough (a body that packs more,
 * br that expands more, bytes that do not decompress), and the caller then
 * decodes the whole body as read-body.ts always did.
 */
export function decodedPrefix(bytes: Uint8Array, encoding: string, length: number): Buffer | undefined {
  const input = view(bytes.subarray(0, PREFIX_INPUT_BYTES))
  let decoded: Buffer
  try {
    decoded = inflateOnce(input, encoding, PREFIX_INPUT_BYTES * 1032 + 64, true)
  } catch {
    return undefined
  }
  // Shorter than asked only when it is the whole body.
  if (decoded.length < length && bytes.length > PREFIX_INPUT_BYTES) return undefined
  return decoded.subarray(0, length)
}
