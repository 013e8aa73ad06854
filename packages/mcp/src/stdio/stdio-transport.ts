import process from 'node:process'
import { isDeepStrictEqual } from 'node:util'
import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'
import { formatBytes } from 'dsh-harness'
import type { EarlyStdio } from './early-initialize.js'

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024

/** Bytes kept from each end of a discarded line, to find the request's id in. */
const KEPT_ENDS = 256

export interface LineTransportOptions {
  input?: Readable
  output?: Writable
  /** Longest line (one JSON-RPC message) read, in bytes; a longer one is discarded as it streams and answered with an error. */
  maxMessageBytes?: number
  /** The flag or setting that sets `maxMessageBytes`, named in the error so a person knows what to change. */
  limitName?: string
  /** What was read (and perhaps answered) before this transport started: read first, and the answer not sent twice. */
  early?: EarlyStdio
}

interface Discarding {
  bytes: number
  head: Buffer
  tail: Buffer
}

/**
 * MCP over stdio, one JSON-RPC message per line, that survives bad input.
 *
 * The SDK's `StdioServerTransport` buffers without bound until its
 * `ReadBuffer` overflows, then closes the connection (dropping calls in
 * flight), and drops a line that is not JSON without an answer. This one
 * reads line by line with a cap: an oversized line is discarded as it
 * arrives (never held whole) and answered with `-32600`, a line that is not
 * JSON with `-32700`, a line that is not a JSON-RPC message with `-32600`;
 * the id is the request's when it can be read, else null. Then it reads on.
 */
export class LineStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private readonly input: Readable
  private readonly output: Writable
  private readonly maxMessageBytes: number
  private readonly limitName: string
  private parts: Buffer[] = []
  private length = 0
  private discarding: Discarding | undefined
  private closed = false
  private readonly early: EarlyStdio | undefined
  /** The server's own answer to the initialize answered early has not gone by yet. */
  private earlyAnswerPending = false

  constructor(options: LineTransportOptions = {}) {
    this.input = options.input ?? process.stdin
    this.output = options.output ?? process.stdout
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
    this.limitName = options.limitName ?? 'maxMessageBytes'
    this.early = options.early
  }

  async start(): Promise<void> {
    // Taken, listened to and replayed in one go: no chunk can arrive in between.
    const held = this.early?.handOver()
    this.earlyAnswerPending = !!this.early?.answered
    this.input.on('data', this.receive)
    this.input.on('end', this.ended)
    this.input.on('error', this.failed)
    this.output.on('error', this.failed)
    for (const chunk of held?.chunks ?? []) this.receive(chunk)
    if (held?.ended) this.ended()
    // The early reader paused the stream (a listener alone does not restart one paused explicitly).
    else if (held) this.input.resume()
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const answered = this.early?.answered
    if (this.earlyAnswerPending && answered && 'id' in message && message.id === answered.id && !('method' in message)) {
      // Already answered before the server loaded (early-initialize.ts): said once, and checked against the server's.
      this.earlyAnswerPending = false
      const sent = answered.result
      const own = 'result' in message ? message.result : { error: message.error }
      if (!isDeepStrictEqual(own, sent)) this.onerror?.(new Error(`the answer sent early to initialize (${JSON.stringify(sent)}) differs from the server's own (${JSON.stringify(own)})`))
      return
    }
    await this.write(JSON.stringify(message) + '\n')
  }

  async close(): Promise<void> {
    this.input.off('data', this.receive)
    this.input.off('end', this.ended)
    this.input.off('error', this.failed)
    this.output.off('error', this.failed)
    if (this.input.listenerCount('data') === 0) this.input.pause()
    this.parts = []
    this.length = 0
    this.discarding = undefined
    this.ended()
  }

  private readonly ended = () => {
    if (this.closed) return
    this.closed = true
    this.onclose?.()
  }

  private readonly failed = (error: Error) => this.onerror?.(error)

  private readonly receive = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    let from = 0
    while (from < data.length) {
      const newline = data.indexOf(0x0a, from)
      this.take(data.subarray(from, newline === -1 ? data.length : newline))
      if (newline === -1) break
      this.endLine()
      from = newline + 1
    }
  }

  /** Adds part of the current line, or, past the cap, counts it and keeps only its last bytes. */
  private take(piece: Buffer) {
    if (!piece.length) return
    if (this.discarding) {
      this.discarding.bytes += piece.length
      this.discarding.tail = keepTail([this.discarding.tail, piece])
      return
    }
    if (this.length + piece.length <= this.maxMessageBytes) {
      this.parts.push(piece)
      this.length += piece.length
      return
    }
    this.discarding = { bytes: this.length + piece.length, head: keepHead([...this.parts, piece]), tail: keepTail([...this.parts, piece]) }
    this.parts = []
    this.length = 0
  }

  private endLine() {
    const discarded = this.discarding
    if (discarded) {
      this.discarding = undefined
      const id = idFromEnds(discarded.head.toString('utf8'), discarded.tail.toString('utf8'))
      this.refuse(id, ErrorCode.InvalidRequest,
        `Invalid Request: the message is ${formatBytes(discarded.bytes)}, more than the limit of ${formatBytes(this.maxMessageBytes)} per message (${this.limitName}); it was discarded unread. Send less data in one message.`,
        { limit: this.limitName, maxBytes: this.maxMessageBytes, bytes: discarded.bytes })
      return
    }
    const line = Buffer.concat(this.parts, this.length).toString('utf8').replace(/\r$/, '')
    this.parts = []
    this.length = 0
    if (!line.trim()) return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      this.refuse(null, ErrorCode.ParseError, `Parse error: the message is not valid JSON (${(error as Error).message}).`)
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(value)
    if (!parsed.success) {
      this.refuse(readableId(value), ErrorCode.InvalidRequest, `Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response${describeShape(value)}.`)
      return
    }
    try {
      this.onmessage?.(parsed.data)
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  private refuse(id: string | number | null, code: number, message: string, data?: Record<string, unknown>) {
    this.onerror?.(new Error(`refused a message: ${message}`))
    const response = { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } }
    this.write(JSON.stringify(response) + '\n').catch((error) => this.onerror?.(error))
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const flushed = this.output.write(text, (error) => (error ? reject(error) : undefined))
      if (flushed) resolve()
      else this.output.once('drain', resolve)
    })
  }
}

/** The first bytes of the pieces, copied. */
function keepHead(pieces: Buffer[]): Buffer {
  const kept: Buffer[] = []
  let length = 0
  for (const piece of pieces) {
    if (length >= KEPT_ENDS) break
    kept.push(piece.subarray(0, KEPT_ENDS - length))
    length += kept[kept.length - 1].length
  }
  return Buffer.concat(kept)
}

/** The last bytes of the pieces, copied, so the chunks they came from can be freed. */
function keepTail(pieces: Buffer[]): Buffer {
  const kept: Buffer[] = []
  let length = 0
  for (let index = pieces.length - 1; index >= 0 && length < KEPT_ENDS; index--) {
    const piece = pieces[index]
    kept.unshift(piece.subarray(Math.max(0, piece.length - (KEPT_ENDS - length))))
    length += kept[0].length
  }
  return Buffer.concat(kept)
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`
/** `{"jsonrpc":"2.0","id":5,…` (members with plain string values may come first). */
const ID_AT_HEAD = new RegExp(String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,)*\s*"id"\s*:\s*` + ID_VALUE)
/** `…,"jsonrpc":"2.0","id":5}`: the order the SDK's clients write. */
const ID_AT_TAIL = new RegExp(String.raw`"id"\s*:\s*` + ID_VALUE + String.raw`\s*\}\s*$`)

/** The id of a message read only at its two ends: the top-level `"id"` member when it is first or last, else null. */
function idFromEnds(head: string, tail: string): string | number | null {
  const match = ID_AT_HEAD.exec(head) ?? ID_AT_TAIL.exec(tail.replace(/\r$/, ''))
  if (!match) return null
  try {
    const id = JSON.parse(match[1]) as unknown
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null
  } catch {
    return null
  }
}

function readableId(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null
}

function describeShape(value: unknown): string {
  if (Array.isArray(value)) return ' (a batch array: send one message per line)'
  if (typeof value !== 'object' || value === null) return ` (a ${value === null ? 'null' : typeof value}, not an object)`
  if ((value as { jsonrpc?: unknown }).jsonrpc !== '2.0') return ' ("jsonrpc" must be "2.0")'
  return ''
}
