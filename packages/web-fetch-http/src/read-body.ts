import { Readable, Transform, type TransformCallback } from 'node:stream'
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib'
import { WebError, redactUrl } from 'dsh-web'
import { type ContentKind, DECODABLE_ENCODINGS, contentEncodings, decodedPrefix, isZlibWrapped, tooLargeMessage, undecodableMessage } from 'dsh-web-readers'

export interface BodyBytes {
  bytes: Buffer
  /** Bytes read off the wire (before decompression). */
  wireBytes: number
  truncated: boolean
  truncatedReason?: string
}

/**
 * The size of the pieces a decoder writes out (zlib's default is 16 KB). Read
 * on the benchmark's pages, 128 KB pieces take about half the time of 16 KB
 * ones; a decompression bomb still stops at most one piece past the cap.
 */
const DECODED_CHUNK_BYTES = 128 * 1024

function tooLarge(url: string, maxBytes: number, decompressed: boolean): WebError {
  return new WebError('WEB_FETCH_TOO_LARGE', tooLargeMessage(maxBytes, decompressed), { details: { url: redactUrl(url), limit: maxBytes } })
}

/** Inflate that accepts both zlib-wrapped and raw deflate, as browsers do. */
class AutoInflate extends Transform {
  private inner?: Transform

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    if (!this.inner) {
      const zlibWrapped = isZlibWrapped(chunk)
      const options = { chunkSize: DECODED_CHUNK_BYTES }
      this.inner = zlibWrapped ? createInflate(options) : createInflateRaw(options)
      this.inner.on('data', (data: Buffer) => this.push(data))
      this.inner.on('error', (error) => this.destroy(error))
    }
    this.inner.write(chunk, callback)
  }

  override _flush(callback: TransformCallback) {
    if (!this.inner) return callback()
    this.inner.once('end', () => callback())
    this.inner.end()
  }
}

function decoderFor(encoding: string, url: string): Transform | undefined {
  // Output in pieces of DECODED_CHUNK_BYTES, not zlib's 16 KB: each piece is a round trip to the thread pool, and a page is a few hundred KB.
  const flush = { finishFlush: constants.Z_SYNC_FLUSH, chunkSize: DECODED_CHUNK_BYTES }
  switch (encoding) {
    case 'identity':
    case '':
      return undefined
    case 'gzip':
    case 'x-gzip':
      return createGunzip(flush)
    case 'deflate':
      return new AutoInflate()
    case 'br':
      return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH, chunkSize: DECODED_CHUNK_BYTES })
    default:
      throw new WebError('WEB_FETCH_FAILED', `The response uses the content encoding "${encoding}", which cannot be decoded (gzip, deflate and br can).`, {
        details: { url: redactUrl(url) },
      })
  }
}

/**
 * Reads a response body through its content encodings, counting bytes both on
 * the wire and after decompression, and stops at `maxBytes` of either: a
 * decompression bomb is cut off after at most one more decoded piece, never
 * buffered whole. Over the cap it throws WEB_FETCH_TOO_LARGE unless
 * `allowPartial`, which keeps the part that fits and marks it truncated.
 */
export async function readBody(
  body: Readable,
  options: { contentEncoding?: string; maxBytes: number; allowPartial: boolean; url: string },
): Promise<BodyBytes> {
  const encodings = contentEncodings(options.contentEncoding)
  const decoders = [...encodings].reverse().map((encoding) => decoderFor(encoding, options.url)).filter((item): item is Transform => !!item)
  const chunks: Buffer[] = []
  let size = 0
  let over = false
  let failure: unknown
  const take = (chunk: Buffer) => {
    if (over) return
    const room = options.maxBytes - size
    if (chunk.length > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room))
      size += Math.max(room, 0)
      over = true
    } else {
      chunks.push(chunk)
      size += chunk.length
    }
  }
  const head = decoders[0]
  const tail = decoders.at(-1)
  for (let i = 0; i + 1 < decoders.length; i++) decoders[i]!.pipe(decoders[i + 1]!)
  let settle: () => void = () => {}
  const finished = new Promise<void>((resolve) => (settle = resolve))
  for (const decoder of decoders) {
    decoder.on('error', (error) => {
      failure ??= error
      settle()
    })
  }
  tail?.on('data', (chunk: Buffer) => {
    take(chunk)
    if (over) settle()
  })
  tail?.on('end', () => settle())
  body.on('error', () => {})
  let wireBytes = 0
  let wireOver = false
  try {
    for await (const received of body as AsyncIterable<Buffer>) {
      let chunk = received
      wireBytes += chunk.length
      if (wireBytes > options.maxBytes) {
        chunk = chunk.subarray(0, chunk.length - (wireBytes - options.maxBytes))
        wireOver = true
      }
      if (!head) take(chunk)
      else if (!head.write(chunk)) await Promise.race([new Promise((resolve) => head.once('drain', resolve)), finished])
      if (over || wireOver || failure) break
    }
    if (head && !over && !failure) {
      head.end()
      await finished
    }
  } finally {
    for (const stream of [body, ...decoders]) {
      stream.on('error', () => {})
      if (!stream.destroyed) stream.destroy()
    }
  }
  if (failure) {
    if (WebError.is(failure)) throw failure
    throw new WebError('WEB_FETCH_FAILED', undecodableMessage(encodings, failure), {
      cause: failure,
      details: { url: redactUrl(options.url) },
    })
  }
  if (over || wireOver) {
    if (!options.allowPartial) throw tooLarge(options.url, options.maxBytes, decoders.length > 0)
    return {
      bytes: Buffer.concat(chunks),
      wireBytes,
      truncated: true,
      truncatedReason: `The response was cut off at the byte limit of ${options.maxBytes} bytes; the rest was not read.`,
    }
  }
  return { bytes: Buffer.concat(chunks), wireBytes, truncated: false }
}

export interface WorkerBody extends BodyBytes {
  /** Content encodings still to undo, in the extraction worker (`inflateBody`); empty when `bytes` are decoded. */
  encodings: string[]
  /** What `sniff` made of the decoded bytes. */
  kind: ContentKind | undefined
}


/**
 * The body as the extraction worker takes it. A compressed body is read as it
 * came (its bytes on the wire capped at `maxBytes`) and inflated in the
 * worker with its output capped at `maxBytes` too: the streaming decoders'
 * thread-pool round trips cost more than the inflation itself, and the
 * compressed bytes are the fewer to hand over. `sniff` (content-type.ts'
 * classifyBody) sees the first KB of decoded bytes, which is all it reads;
 * when it refuses them, or the prefix cannot be had cheaply, the body is
 * decoded here as `readBody` does, so its errors stay exactly those. With
 * `allowPartial` the body is read by `readBody`, which stops reading at the
 * cap and keeps the part that fits.
 */
export async function readBodyForWorker(
  body: Readable,
  options: { contentEncoding?: string; maxBytes: number; allowPartial: boolean; url: string; sniff(bytes: Uint8Array): ContentKind | undefined },
): Promise<WorkerBody> {
  const encodings = contentEncodings(options.contentEncoding)
  const decodeHere = async (source: Readable) => {
    const decoded = await readBody(source, options)
    return { ...decoded, encodings: [], kind: options.sniff(decoded.bytes) }
  }
  if (!encodings.length || options.allowPartial || options.maxBytes < 1 || encodings.some((encoding) => !DECODABLE_ENCODINGS.has(encoding))) return decodeHere(body)
  const chunks: Buffer[] = []
  let wireBytes = 0
  body.on('error', () => {})
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      wireBytes += chunk.length
      if (wireBytes > options.maxBytes) throw tooLarge(options.url, options.maxBytes, true)
      chunks.push(chunk)
    }
  } finally {
    if (!body.destroyed) body.destroy()
  }
  const wire = Buffer.concat(chunks)
  const prefix = encodings.length === 1 ? decodedPrefix(wire, encodings[0]!, 1024) : undefined
  if (prefix) {
    let kind: ContentKind | undefined
    let refused = false
    try {
      kind = options.sniff(prefix)
    } catch {
      refused = true
    }
    if (!refused) return { bytes: wire, wireBytes, truncated: false, encodings, kind }
  }
  return decodeHere(Readable.from([wire]))
}
