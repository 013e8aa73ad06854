import { createRequire } from 'node:module'
import process from 'node:process'
import type { Readable, Writable } from 'node:stream'

/**
 * `dsh mcp` on stdio answers the client's `initialize` at once, before the
 * command line, the MCP SDK and the composition have loaded (a second and
 * more on a busy machine, while clients give a server a few seconds before
 * they give up on it). This file loads nothing but Node's own modules: dsh-cli's
 * `dsh` imports it first and calls `answerInitializeEarly()` when its
 * arguments are those of a stdio server; the stdio transport later takes the
 * bytes read here (`takeEarlyStdio()`) and replays them to the SDK's server,
 * which so sees the whole conversation, `initialize` included, and whose own
 * answer to it is then not sent twice (it is compared with this one, and a
 * difference is logged).
 *
 * Only a well-formed `initialize` as the first message is answered early;
 * anything else waits for the SDK's server, as it did before.
 */

/** The name MCP clients see, and the version of dsh-mcp from its package.json. */
export const SERVER_NAME = 'dsh'
export const SERVER_VERSION: string = (createRequire(import.meta.url)('dsh-mcp/package.json') as { version: string }).version
/** What the server offers: its tools, a list that does not change while it runs. */
export const SERVER_CAPABILITIES = { tools: { listChanged: false } }

/**
 * The protocol versions the MCP SDK's server speaks, newest first (its
 * `SUPPORTED_PROTOCOL_VERSIONS`; the tests check the two agree): a client's
 * version among them is answered with itself, any other with the newest.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']

/** Bytes read while looking for the first line; a longer first line is left to the transport and its limit. */
const PEEK_BYTES = 64 * 1024

type RequestId = string | number

export interface InitializeAnswer {
  protocolVersion: string
  capabilities: typeof SERVER_CAPABILITIES
  serverInfo: { name: string; version: string }
}

/** The answer the SDK's server gives to an initialize asking for `requested`. */
export function initializeAnswer(requested: string): InitializeAnswer {
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : SUPPORTED_PROTOCOL_VERSIONS[0]!,
    capabilities: SERVER_CAPABILITIES,
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
  }
}

/** What was read before the transport started, and the initialize answered from it. */
export interface EarlyStdio {
  /** Stops reading here and gives the bytes read, in order, for the transport to read first. */
  handOver(): { chunks: Buffer[]; ended: boolean }
  /** The id of the initialize answered early, and the answer: the SDK's own answer to that id is not sent again. */
  readonly answered?: { id: RequestId; result: InitializeAnswer }
}

let early: EarlyStdio | undefined

/**
 * True for the arguments of `dsh mcp` serving on stdio: `mcp` first, no
 * `--http`, not `dsh mcp token`, no help or version asked. Any other form
 * (global options before `mcp`, say) simply starts without the early answer.
 */
export function isStdioServe(argv: readonly string[]): boolean {
  if (argv[0] !== 'mcp' || argv[1] === 'token' || argv[1] === 'help') return false
  const options = argv.indexOf('--') === -1 ? argv : argv.slice(0, argv.indexOf('--'))
  return !options.some((arg) => arg === '--http' || arg.startsWith('--http=') || arg === '--help' || arg === '-h' || arg === '--version' || arg === '-V')
}

/**
 * Reads the first line of `input`; when it is an MCP `initialize` request,
 * writes the answer to `output` at once. Reading stops after that line (what
 * follows waits in the stream until the transport reads on).
 */
export function answerInitializeEarly(streams: { input?: Readable; output?: Writable } = {}): EarlyStdio {
  const input = streams.input ?? process.stdin
  const output = streams.output ?? process.stdout
  const chunks: Buffer[] = []
  let length = 0
  let ended = false
  let reading = true
  let answered: EarlyStdio['answered']

  const stop = () => {
    if (!reading) return
    reading = false
    input.off('data', receive)
    input.off('end', end)
    input.pause()
  }
  const end = () => {
    ended = true
    stop()
  }
  const receive = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    chunks.push(data)
    length += data.length
    const newline = data.indexOf(0x0a)
    if (newline === -1) {
      if (length > PEEK_BYTES) stop()
      return
    }
    stop()
    const line = Buffer.concat(chunks, length).subarray(0, length - data.length + newline).toString('utf8')
    const request = initializeRequest(line)
    if (!request) return
    answered = { id: request.id, result: initializeAnswer(request.protocolVersion) }
    output.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: answered.result })}\n`)
  }
  input.on('data', receive)
  input.on('end', end)

  early = {
    handOver() {
      stop()
      early = undefined
      return { chunks, ended }
    },
    get answered() {
      return answered
    },
  }
  return early
}

/** The early reader of this process, if `answerInitializeEarly` ran and nobody took it yet. */
export function takeEarlyStdio(): EarlyStdio | undefined {
  return early
}

/**
 * The first line as an initialize request the SDK's server would accept, or
 * undefined: JSON-RPC 2.0, an id, `params` with a string `protocolVersion`,
 * a `capabilities` object and `clientInfo` with a string name and version.
 */
function initializeRequest(line: string): { id: RequestId; protocolVersion: string } | undefined {
  let message: unknown
  try {
    message = JSON.parse(line.replace(/\r$/, ''))
  } catch {
    return undefined
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'initialize') return undefined
  const { id, params } = message
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined
  if (!isObject(params) || typeof params.protocolVersion !== 'string' || !isObject(params.capabilities)) return undefined
  const client = params.clientInfo
  if (!isObject(client) || typeof client.name !== 'string' || typeof client.version !== 'string') return undefined
  return { id, protocolVersion: params.protocolVersion }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
