// dsh mcp's early answer to initialize (early-initialize.ts) against the MCP
// SDK's own server, on real streams: the same answer, said once, and the
// SDK's server still sees the whole conversation.
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { describe, it } from 'node:test'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ListToolsRequestSchema, SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import { answerInitializeEarly, initializeAnswer, isStdioServe, SERVER_CAPABILITIES, SERVER_NAME, SERVER_VERSION, SUPPORTED_PROTOCOL_VERSIONS, takeEarlyStdio } from '../src/stdio/early-initialize.js'
import { LineStdioTransport } from '../src/stdio/stdio-transport.js'

function lines(output: PassThrough): any[] {
  const read: any[] = []
  let pending = ''
  output.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk
    const parts = pending.split('\n')
    pending = parts.pop()!
    read.push(...parts.map((line) => JSON.parse(line)))
  })
  return read
}

const initialize = (id: number | string, protocolVersion: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'early-test', version: '1' }, ...extra } })

/** Resolves once `read` holds `count` messages. */
async function until(read: any[], count: number): Promise<void> {
  while (read.length < count) await new Promise((resolve) => setImmediate(resolve))
}

/** The SDK's server with dsh's identity, on a line transport over the streams (given the early reader, if any). */
async function sdkServer(input: PassThrough, output: PassThrough, options: { early?: ReturnType<typeof answerInitializeEarly>; capabilities?: object } = {}) {
  const server = new Server({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: options.capabilities ?? SERVER_CAPABILITIES })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }))
  const errors: string[] = []
  server.onerror = (error) => errors.push(error.message)
  await server.connect(new LineStdioTransport({ input, output, ...(options.early ? { early: options.early } : {}) }))
  return { server, errors }
}

describe("dsh mcp's early answer to initialize", () => {
  it('speaks the protocol versions the SDK speaks, newest first', () => {
    assert.deepEqual(SUPPORTED_PROTOCOL_VERSIONS, SDK_VERSIONS)
  })

  it("is the SDK server's own answer, for a version it speaks and one it does not", async () => {
    for (const version of ['2025-06-18', '2024-11-05', '2031-01-01', 'not a version']) {
      const input = new PassThrough()
      const output = new PassThrough()
      const read = lines(output)
      await sdkServer(input, output)
      input.write(`${initialize(7, version)}\n`)
      await until(read, 1)
      assert.deepEqual(read[0].result, initializeAnswer(version), version)
    }
  })

  it('answers at once, then the server reads the same bytes: one answer to initialize, the rest answered in order', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const read = lines(output)
    const early = answerInitializeEarly({ input, output })
    // initialize, initialized and tools/list in one write, as a quick client sends them.
    input.write(`${initialize(1, '2025-06-18')}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n`)
    await until(read, 1)
    assert.deepEqual(read, [{ jsonrpc: '2.0', id: 1, result: initializeAnswer('2025-06-18') }], 'answered before any server exists')
    assert.equal(takeEarlyStdio(), early)
    const { server, errors } = await sdkServer(input, output, { early })
    await until(read, 2)
    input.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
    await until(read, 3)
    assert.deepEqual(read.map((message) => message.id), [1, 2, 3])
    assert.deepEqual(read[1].result, { tools: [] })
    assert.deepEqual(server.getClientVersion(), { name: 'early-test', version: '1' }, 'the server saw the initialize')
    assert.deepEqual(errors, [])
    assert.equal(takeEarlyStdio(), undefined, 'handed over once')
  })

  it('leaves a first message that is not a well-formed initialize to the server', async () => {
    for (const first of ['{"jsonrpc":"2.0","id":1,"method":"ping"}', initialize(1, '2025-06-18', { clientInfo: { name: 'no version' } }), '{"jsonrpc":"2.0","id":1,"method":"initialize"', '[1]']) {
      const input = new PassThrough()
      const output = new PassThrough()
      const read = lines(output)
      const early = answerInitializeEarly({ input, output })
      input.write(`${first}\n`)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(early.answered, undefined, first)
      assert.deepEqual(read, [], first)
      await sdkServer(input, output, { early })
      await until(read, 1)
      assert.equal(read.length, 1, first)
      assert.ok(!('result' in read[0]) || first.includes('ping'), `${first}: answered by the server, as before`)
    }
  })

  it("logs it when the server's own answer differs from the one sent early, and still sends it once", async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const read = lines(output)
    const early = answerInitializeEarly({ input, output })
    input.write(`${initialize('a', '2025-03-26')}\n`)
    await until(read, 1)
    const { errors } = await sdkServer(input, output, { early, capabilities: { tools: { listChanged: true } } })
    input.write('{"jsonrpc":"2.0","id":"b","method":"ping"}\n')
    await until(read, 2)
    assert.deepEqual(read.map((message) => message.id), ['a', 'b'])
    assert.equal(errors.length, 1)
    assert.match(errors[0]!, /the answer sent early to initialize .* differs from the server's own .*"listChanged":true/)
  })

  it('starts only for dsh mcp on stdio', () => {
    for (const argv of [['mcp'], ['mcp', '--preset', 'standard'], ['mcp', '--config', 'x.yml', '--max-message-bytes', '9999']]) assert.equal(isStdioServe(argv), true, argv.join(' '))
    for (const argv of [[], ['tools'], ['mcp', '--http', '8080'], ['mcp', '--http=8080'], ['mcp', 'token', 'list'], ['mcp', '--help'], ['mcp', '-h'], ['mcp', 'help'], ['--preset', 'standard', 'mcp']]) {
      assert.equal(isStdioServe(argv), false, argv.join(' '))
    }
  })
})
