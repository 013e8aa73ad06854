import { WebError, redactUrl } from 'dsh-web'
import type { ContentKind } from './decode-body.js'

export type { ContentKind } from './decode-body.js'

/** The media type without parameters, lower case; undefined when absent or malformed. */
export function essence(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined
  const value = contentType.split(';')[0]!.trim().toLowerCase()
  return /^[\w.+-]+\/[\w.+-]+$/.test(value) ? value : undefined
}

const TEXT_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/x-ndjson',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/rss+xml',
  'application/atom+xml',
  'application/x-sh',
])

/**
 * Decides from the header alone what is done with a response: HTML and XHTML
 * are extracted, text, JSON and XML returned as text; anything else is refused
 * before its body is read. A missing type is decided later by sniffing.
 */
export function classifyContentType(contentType: string | undefined, url: string): ContentKind | undefined {
  const type = essence(contentType)
  if (!type) return undefined
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html'
  if (type.startsWith('text/') || TEXT_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml')) return 'text'
  throw new WebError(
    'WEB_UNSUPPORTED_CONTENT_TYPE',
    `The response is ${type}, which cannot be read as text; only HTML, text, JSON and XML pages are supported.`,
    { details: { url: redactUrl(url), contentType: type } },
  )
}

const SIGNATURES: [bytes: number[], name: string][] = [
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 'a PDF document'],
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'a GIF image'],
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive'],
  [[0x1f, 0x8b], 'gzip data'],
  [[0x7f, 0x45, 0x4c, 0x46], 'an executable'],
  [[0x52, 0x49, 0x46, 0x46], 'a RIFF media file'],
]

/**
 * The WHATWG MIME sniffing rule for binary data: any control byte other than
 * tab, newline, form feed, carriage return and escape in the first 512 bytes.
 * UTF-16 bodies (with a BOM) are text.
 */
export function sniffBinary(bytes: Uint8Array): string | undefined {
  for (const [signature, name] of SIGNATURES) {
    if (signature.every((byte, index) => bytes[index] === byte)) return name
  }
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe)) return undefined
  const end = Math.min(bytes.length, 512)
  for (let i = 0; i < end; i++) {
    const byte = bytes[i]!
    if (byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f)) return 'binary data'
  }
  return undefined
}

export { sniffKind } from './decode-body.js'
