import { createHash } from 'node:crypto'
import type { FetchExtract, FetchFormat } from 'dsh-web'
import { type ContentKind, charsetFromContentType, decodeBody, sniffKind } from './decode-body.js'
import { type ExtractOutput, extractHtml } from '../html/extract-html.js'
import { convertXml } from './feed-items.js'
import { formatJson } from './json-document.js'
import { extractPdf } from '../pdf/pdf-text.js'

/** A response body as read off the wire (decompressed), to be turned into what the model reads. */
export interface ConvertInput {
  bytes: Uint8Array
  contentType?: string
  /** From the Content-Type; undefined: sniffed from the decoded text. */
  kind?: ContentKind
  url: string
  /** The URL as messages may show it (the pool redacts it before the job is sent; workers do not load dsh-web). */
  shownUrl?: string
  format: FetchFormat
  extract: FetchExtract
  maxElemsToParse?: number
}

export interface ConvertOutput extends ExtractOutput {
  kind: ContentKind
  charset: string
  /** Of the body bytes. */
  sha256: string
}

/** The encoding an XML declaration names (`<?xml version="1.0" encoding="ISO-8859-1"?>`), read as ASCII. */
function xmlDeclaredEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 200)).toString('latin1')
  return /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1]
}

/** Untyped text that starts like XML (a feed served with no type) is read as XML. */
const XML_START = /^\s*(?:<\?xml\b|<rss\b|<feed\b|<rdf:RDF\b)/

/**
 * Everything after the body is read: hash, charset, decoding, and the
 * conversion by kind (PDF pages, HTML extraction, feed items, pretty JSON,
 * text as it is). It runs off the main thread, so that the main thread neither
 * decodes nor copies a big page: a PDF in a document process
 * (document-child.ts), every other kind in an extraction worker (convertBody),
 * which gets the bytes by transfer.
 */
export async function convertDocument(input: ConvertInput): Promise<ConvertOutput> {
  if (input.kind !== 'pdf') return convertBody(input)
  const sha256 = createHash('sha256').update(input.bytes).digest('hex')
  const output = await extractPdf({ bytes: input.bytes, shownUrl: input.shownUrl, format: input.format })
  return { ...output, kind: 'pdf', charset: 'binary', sha256 }
}

/** `convertDocument` for the kinds read synchronously: everything but PDF. */
export function convertBody(input: ConvertInput): ConvertOutput {
  if (input.kind === 'pdf') throw new Error('convertBody does not read PDF; use convertDocument')
  const sha256 = createHash('sha256').update(input.bytes).digest('hex')
  // XML says its encoding in its declaration; the header's charset, when given, still wins (RFC 7303).
  const declared = input.kind === 'xml' && !charsetFromContentType(input.contentType) ? xmlDeclaredEncoding(input.bytes) : undefined
  const contentType = declared ? `application/xml; charset=${declared}` : input.contentType
  const decoded = decodeBody(input.bytes, contentType, input.kind === undefined || input.kind === 'html')
  let kind = input.kind ?? sniffKind(decoded.text)
  if (input.kind === undefined && kind === 'text' && XML_START.test(decoded.text.slice(0, 1024))) kind = 'xml'
  const converted = { kind, charset: decoded.charset, sha256 }
  switch (kind) {
    case 'html':
      return { ...extractHtml({ html: decoded.text, url: input.url, format: input.format, extract: input.extract, maxElemsToParse: input.maxElemsToParse }), ...converted }
    case 'json':
      return { ...formatJson({ text: decoded.text, shownUrl: input.shownUrl, format: input.format, contentType: input.contentType?.split(';')[0]?.trim() }), ...converted }
    case 'xml':
      return { ...convertXml({ text: decoded.text, url: input.url, format: input.format }), ...converted }
    default:
      return { text: decoded.text, metadata: { sourceFormat: 'text' }, links: [], extractor: 'none (text)', warnings: [], ...converted }
  }
}
