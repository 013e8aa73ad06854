import { WebError, redactUrl } from 'dsh-web'
import type { ContentKind } from 'dsh-web-readers'

/** The media type without parameters, lower case; undefined when absent or malformed. */
export function essence(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined
  const value = contentType.split(';')[0]!.trim().toLowerCase()
  return /^[\w.+-]+\/[\w.+-]+$/.test(value) ? value : undefined
}

const TEXT_TYPES = new Set([
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/x-ndjson',
  'application/json-seq',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
])

const JSON_TYPES = new Set(['application/json', 'text/json', 'application/x-json'])
const XML_TYPES = new Set(['application/xml', 'text/xml', 'application/rss+xml', 'application/atom+xml', 'application/rdf+xml'])
const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf', 'application/acrobat'])
/** Labels that say nothing about the bytes: the body is read and sniffed (a PDF is often sent so). */
const UNLABELLED_TYPES = new Set(['application/octet-stream', 'binary/octet-stream', 'application/x-download', 'application/download', 'application/unknown'])

const ARCHIVE_TYPES = new Set([
  'application/zip',
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
  'application/x-gtar',
  'application/x-bzip2',
  'application/x-xz',
  'application/zstd',
  'application/x-7z-compressed',
  'application/x-rar-compressed',
  'application/vnd.rar',
  'application/java-archive',
  'application/x-iso9660-image',
  'application/vnd.debian.binary-package',
  'application/x-rpm',
])

/** What a person calls a media type that cannot be read as text. */
function describeType(type: string): string {
  const top = type.split('/')[0]
  if (top === 'image') return 'an image'
  if (top === 'audio') return 'audio'
  if (top === 'video') return 'video'
  if (top === 'font') return 'a font'
  if (top === 'model') return 'a 3D model'
  if (ARCHIVE_TYPES.has(type) || /zip|compressed|archive/.test(type)) return 'an archive'
  if (/msword|officedocument|ms-excel|ms-powerpoint|opendocument/.test(type)) return 'an office document'
  return 'binary data'
}

/** A byte count for a person: "48,213 bytes (47.1 KB)". */
export function describeSize(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return 'size not given'
  const exact = `${bytes.toLocaleString('en-US')} bytes`
  if (bytes < 1024) return exact
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${exact} (${value.toFixed(1)} ${units[unit]})`
}

function parseLength(contentLength: string | undefined): number | undefined {
  if (!contentLength || !/^\s*\d+\s*$/.test(contentLength)) return undefined
  return Number(contentLength)
}

const SUPPORTED = 'web_fetch reads HTML, PDF, RSS and Atom feeds, JSON, XML and plain text.'

function unsupported(url: string, type: string | undefined, what: string, bytes: number | undefined, sniffed: boolean): WebError {
  const label = sniffed ? `${type ? `labelled ${type}` : 'with no type'}, found by its bytes` : type
  return new WebError(
    'WEB_UNSUPPORTED_CONTENT_TYPE',
    `The response from ${redactUrl(url)} is ${what} (${label}, ${describeSize(bytes)}), which cannot be read as text. ${SUPPORTED}`,
    { details: { url: redactUrl(url), contentType: type, ...(bytes === undefined ? {} : { bytes }) } },
  )
}

/**
 * Decides from the header alone what is done with a response: HTML and XHTML
 * are extracted, PDF read page by page, JSON pretty-printed, XML read as a
 * feed when it is one, other text returned as it is. Images, audio, video,
 * archives and other binary types are refused before the body is read, naming
 * the type and the size the server gave. A missing type, or one that says
 * nothing (application/octet-stream), is decided later by sniffing the bytes.
 */
export function classifyContentType(contentType: string | undefined, url: string, contentLength?: string): ContentKind | undefined {
  const type = essence(contentType)
  if (!type || UNLABELLED_TYPES.has(type)) return undefined
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html'
  if (PDF_TYPES.has(type)) return 'pdf'
  if (JSON_TYPES.has(type) || type.endsWith('+json')) return 'json'
  if (XML_TYPES.has(type) || type.endsWith('+xml')) return 'xml'
  if (type.startsWith('text/') || TEXT_TYPES.has(type)) return 'text'
  throw unsupported(url, type, describeType(type), parseLength(contentLength), false)
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

/** The PDF header may follow up to 1024 bytes of junk (PDF 1.7, annex H.3). */
function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes('%PDF-', 0, 'latin1')
}

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

/**
 * After the body is read: a body the header left undecided (no type, or
 * application/octet-stream) that is a PDF is read as one, other binary is
 * WEB_UNSUPPORTED_CONTENT_TYPE naming what its bytes are and their size; a
 * body labelled as text whose bytes are binary is WEB_NO_TEXT_CONTENT.
 * Returns the kind to convert with (undefined: sniffed from the text later).
 */
export function classifyBody(kind: ContentKind | undefined, bytes: Uint8Array, contentType: string | undefined, url: string): ContentKind | undefined {
  if (kind === 'pdf' || !bytes.length) return kind
  const type = essence(contentType)
  if (kind === undefined && isPdf(bytes)) return 'pdf'
  const binary = sniffBinary(bytes)
  if (!binary) return kind
  if (kind === undefined) throw unsupported(url, type, binary, bytes.length, true)
  throw new WebError(
    'WEB_NO_TEXT_CONTENT',
    `The response from ${redactUrl(url)} is labelled ${type ?? 'with no type'} but its bytes are ${binary}, not text.`,
    { details: { url: redactUrl(url), contentType: type } },
  )
}
