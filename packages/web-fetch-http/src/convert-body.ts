import { createHash } from 'node:crypto'
import type { FetchExtract, FetchFormat } from 'dsh-web'
import { type ContentKind, decodeBody, sniffKind } from './decode-body.js'
import { type ExtractOutput, extractHtml } from './extract-html.js'

/** A response body as read off the wire (decompressed), to be turned into what the model reads. */
export interface ConvertInput {
  bytes: Uint8Array
  contentType?: string
  /** From the Content-Type; undefined: sniffed from the decoded text. */
  kind?: ContentKind
  url: string
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

/**
 * Everything after the body is read: hash, charset, decoding, and for HTML the
 * extraction. It runs in an extraction worker, which gets the bytes by
 * transfer, so that the main thread neither decodes nor copies a big page.
 */
export function convertBody(input: ConvertInput): ConvertOutput {
  const sha256 = createHash('sha256').update(input.bytes).digest('hex')
  const decoded = decodeBody(input.bytes, input.contentType, input.kind !== 'text')
  const kind = input.kind ?? sniffKind(decoded.text)
  if (kind === 'html') {
    const output = extractHtml({ html: decoded.text, url: input.url, format: input.format, extract: input.extract, maxElemsToParse: input.maxElemsToParse })
    return { ...output, kind, charset: decoded.charset, sha256 }
  }
  return { text: decoded.text, metadata: {}, links: [], extractor: 'none (text)', warnings: [], kind, charset: decoded.charset, sha256 }
}
