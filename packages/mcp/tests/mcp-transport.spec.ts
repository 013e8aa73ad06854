import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { describe, it } from 'node:test'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { LineStdioTransport } from '../src/stdio/stdio-transport.js'

/** The transport on a pair of real streams: what it delivers, and what it writes back. */
async function open(maxMessageBytes = 1024) {
  const input = new PassThrough()
  const output = new PassThrough()
  const transport = new LineStdioTransport({ input, output, maxMessageBytes, limitName: 'the test limit' })
  const delivered: JSONRPCMessage[] = []
  const written: any[] = []
  let pending = ''
  output.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk
    const lines = pending.split('\n')
    pending = lines.pop()!
    written.push(...lines.map((line) => JSON.parse(line)))
  })
  transport.onmessage = (message) => delivered.push(message)
  let closed = false
  transport.onclose = () => (closed = true)
  await transport.start()
  /** Writes the chunks one by one, then waits until the streams have passed everything on. */
  const feed = async (...chunks: Array<string | Buffer>) => {
    for (const chunk of chunks) input.write(chunk)
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { transport, input, delivered, written, feed, closed: () => closed }
}

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })

describe('the line transport of dsh mcp', () => {
  it('reads messages split anywhere across chunks, a UTF-8 character and CRLF included', async () => {
    const { delivered, feed } = await open()
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'zwölf 😀' } } })
    const bytes = Buffer.from(`${text}\r\n${ping(2)}\n`)
    const split = bytes.indexOf(Buffer.from('😀')) + 2 // inside the emoji's four bytes
    await feed(bytes.subarray(0, split), bytes.subarray(split, split + 3), bytes.subarray(split + 3))
    assert.deepEqual(delivered, [JSON.parse(text), JSON.parse(ping(2))])
  })

  it('discards an oversized line as it streams, answers with the id found at either end, and reads on', async () => {
    const { delivered, written, feed } = await open(1024)
    const filler = 'f'.repeat(600)
    // The SDK's clients write the id last; other clients may write it first.
    await feed(`{"method":"tools/call","params":{"a":"${filler}",`, `"b":"${filler}"},"jsonrpc":"2.0","id":41}\n`)
    await feed(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"a":"${filler}${filler}"}}\n`)
    await feed(`{"params":{"a":"${filler}${filler}","id":3},"jsonrpc":"2.0","method":"x"}\n`, `${ping(5)}\n`)
    assert.deepEqual(written.map((message) => [message.id, message.error.code]), [[41, -32600], ['first', -32600], [null, -32600]])
    assert.match(written[0].error.message, /the message is 1,2\d\d bytes \(1\.2 KiB\), more than the limit of 1,024 bytes \(1\.0 KiB\) per message \(the test limit\); it was discarded unread/)
    assert.deepEqual(delivered, [JSON.parse(ping(5))])
  })

  it('answers a line that is not JSON or not JSON-RPC, and closes only when its input ends', async () => {
    const { delivered, written, feed, input, closed } = await open()
    await feed('not json\n', '{"jsonrpc":"1.0","id":9,"method":"ping"}\n', '"a string"\n', '\n', `${ping(10)}\n`)
    assert.deepEqual(written.map((message) => [message.id, message.error.code]), [[null, -32700], [9, -32600], [null, -32600]])
    assert.match(written[2].error.message, /\(a string, not an object\)/)
    assert.deepEqual(delivered, [JSON.parse(ping(10))])
    assert.equal(closed(), false)
    input.end()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(closed(), true)
  })
})
