import type { IncomingMessage } from 'node:http'

/**
 * The request body of `dsh mcp --http`, read with its two bounds checked as
 * the bytes arrive, before anything parses it: its size (--max-body-bytes)
 * and how deep its JSON nests (--max-json-depth). JSON.parse runs on the
 * event loop and costs seconds on a body of a million open brackets, so
 * the depth is counted first by a linear scan that carries its state from
 * chunk to chunk; a body over either bound is refused at the chunk that
 * crosses it, and never read for gigabytes.
 */

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
/** Room for the JSON-RPC envelope (batch, message, params, arguments) around a tool input of the tools row's default inputMaxDepth (64). */
export const DEFAULT_MAX_JSON_DEPTH = 128
/**
 * What is still read, and dropped, of a refused body after the answer was
 * sent, so that a client writing its body gets to read the answer rather
 * than a reset connection. Past it the connection is closed.
 */
export const DISCARD_AFTER_REFUSAL_BYTES = 1024 * 1024

export interface BodyLimits {
  maxBodyBytes: number
  maxJsonDepth: number
}

export type BodyRefusal =
  | { reason: 'too-large'; bytes: number; declared: boolean }
  | { reason: 'too-deep'; depth: number; at: number }

/**
 * The deepest nesting of JSON text seen so far, fed chunk by chunk: `[` and
 * `{` outside strings open a level, `]` and `}` close one. The text's
 * validity is left to JSON.parse; only the depth is counted here, and
 * UTF-8 continuation bytes never equal the ASCII bytes looked for.
 */
export class JsonDepthScan {
  private depth = 0
  private inString = false
  private escaped = false
  private offset = 0

  constructor(private readonly maxDepth: number) {}

  /** The byte offset where the depth first passes the limit, or -1 while it has not. */
  feed(chunk: Buffer): number {
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index]
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (byte === 0x5c) this.escaped = true
        else if (byte === 0x22) this.inString = false
      } else if (byte === 0x22) this.inString = true
      else if (byte === 0x5b || byte === 0x7b) {
        if (++this.depth > this.maxDepth) return this.offset + index
      } else if (byte === 0x5d || byte === 0x7d) this.depth--
    }
    this.offset += chunk.length
    return -1
  }
}

/**
 * Reads the body within the limits. On a refusal the promise resolves at
 * once (the caller answers), the rest of the body is read and dropped up to
 * DISCARD_AFTER_REFUSAL_BYTES, and past that the connection is destroyed.
 */
/** How long a refused connection lingers, half-closed and unread, before it is destroyed. */
const LINGER_MS = 1000

export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<{ text: string } | { refused: BodyRefusal }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const scan = new JsonDepthScan(limits.maxJsonDepth)
    let received = 0
    let discarded = 0
    let settled = false
    const refuse = (refusal: BodyRefusal) => {
      settled = true
      chunks.length = 0
      resolve({ refused: refusal })
    }
    const onData = (chunk: Buffer) => {
      if (settled) {
        discarded += chunk.length
        if (discarded > DISCARD_AFTER_REFUSAL_BYTES) {
          // A lingering close: stop reading and send FIN, so the client reads its answer; destroyed a moment later.
          // Destroying at once, while the client still writes, resets the connection and can discard the answer unread.
          req.off('data', onData)
          req.socket.pause()
          req.socket.end()
          setTimeout(() => req.socket.destroy(), LINGER_MS).unref()
        }
        return
      }
      received += chunk.length
      if (received > limits.maxBodyBytes) return refuse({ reason: 'too-large', bytes: received, declared: false })
      const at = scan.feed(chunk)
      if (at >= 0) return refuse({ reason: 'too-deep', depth: limits.maxJsonDepth + 1, at })
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.on('end', () => {
      if (!settled) {
        settled = true
        resolve({ text: Buffer.concat(chunks).toString('utf8') })
      }
    })
    req.on('error', (error) => {
      if (!settled) reject(error)
    })
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limits.maxBodyBytes) refuse({ reason: 'too-large', bytes: declared, declared: true })
  })
}

/** The refusal as said to the client: what was wrong, the limit, and the flag that sets it. */
export function describeBodyRefusal(refusal: BodyRefusal, limits: BodyLimits): { status: number; message: string; data: Record<string, unknown> } {
  if (refusal.reason === 'too-large') {
    const { maxBodyBytes } = limits
    const size = refusal.declared ? `is ${refusal.bytes} bytes` : `passed ${maxBodyBytes} bytes (${refusal.bytes} read when it was stopped)`
    return {
      status: 413,
      message: `Refused: the request body ${size}, more than the limit of ${maxBodyBytes} bytes per request (dsh mcp --http --max-body-bytes ${maxBodyBytes}).`,
      data: { limit: `--max-body-bytes ${maxBodyBytes}`, maxBytes: maxBodyBytes, bytes: refusal.bytes },
    }
  }
  const { maxJsonDepth } = limits
  return {
    status: 400,
    message: `Refused: the request's JSON nests deeper than ${maxJsonDepth} levels (at byte ${refusal.at}), the limit per request (dsh mcp --http --max-json-depth ${maxJsonDepth}); it was not parsed. A tool input needs far fewer levels.`,
    data: { limit: `--max-json-depth ${maxJsonDepth}`, maxDepth: maxJsonDepth },
  }
}
