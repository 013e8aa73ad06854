import assert from 'node:assert/strict'
import { request } from 'node:http'
import { connect as connectSocket, type Socket } from 'node:net'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { tempHome } from './helpers.js'
import { connect, createToken, HttpDsh } from './mcp-http-process.js'

/**
 * The bounds that keep `dsh mcp --http` fair to every client (issue 23.6):
 * JSON depth checked before parsing, bodies counted as they stream,
 * connections without a valid token held to their share, slow heads
 * closed, and the calls run_code makes counted against the token's limits.
 * Real `dsh mcp --http` processes and real sockets; every wait is on an
 * event (a response, a close), none on a delay.
 */

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })

/** A raw POST of `body`, answered as status and parsed JSON. */
function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A raw socket to the server, with everything it received and events for its first full response and its close. */
function rawSocket(port: number) {
  const socket: Socket = connectSocket(port, '127.0.0.1')
  let received = ''
  let written = 0
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.on('error', () => {}) // a reset after the answer is expected
  /** The first response, once its head and a JSON body have arrived. */
  const response = new Promise<{ status: number; json: any }>((resolve, reject) => {
    const onData = () => {
      const head = /^HTTP\/1\.1 (\d{3})[^]*?\r\n\r\n/.exec(received)
      const length = head && /content-length: (\d+)/i.exec(head[0])
      if (head && length && received.length >= head[0].length + Number(length[1])) {
        socket.off('data', onData)
        resolve({ status: Number(head[1]), json: JSON.parse(received.slice(head[0].length, head[0].length + Number(length[1]))) })
      }
    }
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      received += chunk
      onData()
    })
    closed.then(() => reject(new Error(`closed without a whole response; received: ${received.slice(0, 300)}`)))
  })
  response.catch(() => {})
  /** Writes `data`; resolves when it has been handed to the kernel (or the socket closed). */
  const write = (data: string | Buffer) => new Promise<boolean>((resolve) => {
    if (socket.destroyed) return resolve(false)
    written += Buffer.byteLength(data)
    // Called once the kernel has the data, or with an error when the socket is destroyed first.
    socket.write(data, (error) => resolve(!error))
  })
  return { socket, connected, closed, response, write, received: () => received, written: () => written }
}

function head(port: number, token: string, extra: string): string {
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n${extra}\r\n`
}

describe('dsh mcp --http: bounds that keep it fair', () => {
  let home: string
  let server: HttpDsh
  let token = ''
  before(async () => {
    home = await tempHome()
    const overlay = join(home, 'echo.cordis.yml')
    await writeFile(overlay, `- id: echo\n  name: dsh-test-plugins/echo-tool\n  config: { prefix: bounds }\n`)
    token = await createToken(home, 'agent')
    // The default --headers-timeout (10 s): a 1 s one could close a test's own connection on a machine that stalls for a second.
    server = await HttpDsh.start(['--preset', 'minimal', '--config', overlay, '--max-pending-connections', '8', '--max-connections', '16'], home)
  })
  after(async () => {
    await server?.stop()
    await rm(home, { recursive: true, force: true })
  })

  it('refuses a body nested a million levels deep at the level past --max-json-depth, before it is all sent, and serves another client meanwhile (was: JSON.parse held every client for seconds)', async () => {
    const depth = 1_000_000
    const deep = rawSocket(server.port)
    await deep.connected
    // Half the body (its million open brackets) is sent; the rest is held back.
    await deep.write(head(server.port, token, `Content-Length: ${2 * depth}\r\n`) + '['.repeat(depth))
    const other = await post(server.url, LIST, { authorization: `Bearer ${token}` })
    assert.equal(other.status, 200)
    assert.deepEqual(other.json.result.tools.map((tool: any) => tool.name), ['echo'])
    // Every data event of this turn of the event loop has been handled: has the deep request been answered?
    await new Promise((resolve) => setImmediate(resolve))
    const answeredBeforeTheRest = /^HTTP\/1\.1 \d{3}/.test(deep.received())
    // A server that waits for the whole body gets it, so that this test fails rather than hangs.
    if (!answeredBeforeTheRest) await deep.write(']'.repeat(depth))
    const refused = await deep.response
    assert.equal(refused.status, 400)
    assert.match(refused.json.error.message, /^Refused: the request's JSON nests deeper than 128 levels \(at byte 128\), the limit per request \(dsh mcp --http --max-json-depth 128\); it was not parsed/)
    assert.equal(refused.json.error.data.limit, '--max-json-depth 128')
    assert.ok(answeredBeforeTheRest, 'refused at the chunk that crossed the limit, not after the whole body')
    deep.socket.destroy()
  })

  it('counts only brackets outside strings: text full of brackets and quotes is served', async () => {
    const text = '[{"'.repeat(5000) + '\\"]'
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text } } })
    const answer = await post(server.url, body, { authorization: `Bearer ${token}` })
    assert.equal(answer.status, 200, JSON.stringify(answer.json))
    assert.equal(answer.json.result.content[0].text, `bounds: ${text}`)
  })

  for (const [kind, framing] of [['chunked', 'Transfer-Encoding: chunked\r\n'], ['declared as 10 GiB', `Content-Length: ${10 * 1024 ** 3}\r\n`]] as const) {
    it(`answers a ${kind} body over --max-body-bytes with 413 and stops reading it (was: read for gigabytes)`, async () => {
      const client = rawSocket(server.port)
      await client.connected
      await client.write(head(server.port, token, framing))
      const piece = Buffer.alloc(64 * 1024, 0x20)
      const chunk = kind === 'chunked' ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece
      // Written as fast as the server takes it, up to 256 MiB: a server that reads on takes it all.
      const ceiling = 256 * 1024 * 1024
      while (client.written() < ceiling && (await client.write(chunk)));
      // A server that read it all is given the end of the body, so that this test fails rather than hangs.
      if (kind === 'chunked') await client.write('0\r\n\r\n')
      const refused = await client.response
      assert.equal(refused.status, 413)
      assert.match(refused.json.error.message, /more than the limit of 4194304 bytes per request \(dsh mcp --http --max-body-bytes 4194304\)/)
      // The limit, the 1 MiB read after the answer, and what the two kernels' socket buffers held.
      const taken = client.written()
      if (taken >= 32 * 1024 * 1024) client.socket.destroy()
      assert.ok(taken < 32 * 1024 * 1024, `the server took ${taken} bytes`)
      await client.closed
    })
  }

  it('keeps room for a client with a valid token while more half-open connections than --max-pending-connections are held (slowloris)', async () => {
    const slow = Array.from({ length: 40 }, () => rawSocket(server.port))
    await Promise.all(slow.map((client) => client.connected))
    // Each sends part of a request head, and never the rest.
    await Promise.all(slow.map((client) => client.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`)))
    const served = await connect(server.url, token)
    assert.deepEqual((await served.listTools()).tools.map((tool) => tool.name), ['echo'])
    assert.equal(((await served.callTool({ name: 'echo', arguments: { text: 'in' } })) as any).content[0].text, 'bounds: in')
    await served.close()
    // All but the newest 8 were closed to make room: 32 for the slow ones past the share, at least one more for the client's.
    let closed = 0
    await new Promise<void>((resolve) => slow.forEach((client) => client.closed.then(() => ++closed === 33 && resolve())))
    assert.match(server.stderr, /connections without a valid token are open, the limit \(dsh mcp --http --max-pending-connections 8\); the oldest was closed to make room for a new one/)
    for (const client of slow) client.socket.destroy()
  })
})

describe('dsh mcp --http --headers-timeout', () => {
  let home: string
  let server: HttpDsh
  before(async () => {
    home = await tempHome()
    await createToken(home, 'agent')
    server = await HttpDsh.start(['--preset', 'minimal', '--headers-timeout', '1000'], home)
  })
  after(async () => {
    await server?.stop()
    await rm(home, { recursive: true, force: true })
  })

  // The give-up time only keeps a server on Node's defaults (60 s, checked every 30 s) from passing slowly; nothing here is timed.
  it('closes a connection whose request head is not complete in time, with 408 (was: Node\'s 60 s)', { timeout: 30_000 }, async () => {
    const client = rawSocket(server.port)
    await client.connected
    await client.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`)
    await client.closed
    assert.match(client.received(), /^HTTP\/1\.1 408 /)
  })
})

describe('dsh mcp --http: the calls run_code makes count against the token', () => {
  let home: string
  let server: HttpDsh
  const tokens: Record<string, string> = {}
  before(async () => {
    home = await tempHome()
    const overlay = join(home, 'echo.cordis.yml')
    await writeFile(overlay, `- id: echo\n  name: dsh-test-plugins/echo-tool\n  config: { prefix: nested }\n`)
    for (const name of ['coder', 'other']) tokens[name] = await createToken(home, name)
    server = await HttpDsh.start(['--preset', 'ptc', '--config', overlay, '--calls-per-minute', '5'], home)
  })
  after(async () => {
    await server?.stop()
    await rm(home, { recursive: true, force: true })
  })

  it('refuses the calls of one run_code past --calls-per-minute, and the token\'s next call (was: not counted at all)', async () => {
    const coder = await connect(server.url, tokens.coder)
    const code = `const outcomes = []
for (let call = 0; call < 8; call++) {
  try { await tools.echo({ text: 'n' + call }); outcomes.push('ok') } catch (error) { outcomes.push(error.code + ': ' + error.message) }
}
return outcomes`
    const result: any = await coder.callTool({ name: 'run_code', arguments: { code } })
    assert.equal(result.isError, false, result.content[0].text)
    const outcomes: string[] = result.structuredContent.result
    // run_code itself is the first of the five; four calls from its code fit.
    assert.deepEqual(outcomes.slice(0, 4), ['ok', 'ok', 'ok', 'ok'])
    for (const outcome of outcomes.slice(4)) {
      assert.match(outcome, /^TOOL_REFUSED: .*the token "coder" started 5 tool calls in the last minute in this process, the limit \(dsh mcp --http --calls-per-minute 5\)\. Call again in \d+ s\. \(a call made by run_code counts against its token's limit like any other\)$/)
    }
    await assert.rejects(coder.callTool({ name: 'run_code', arguments: { code: 'return 1' } }), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error))
      assert.equal((error.data as any).code, 'CALL_RATE_LIMITED')
      return true
    })
    await coder.close()
    // Another token has its own budget.
    const other = await connect(server.url, tokens.other)
    const mine: any = await other.callTool({ name: 'run_code', arguments: { code: `return await tools.echo({ text: 'mine' })` } })
    assert.equal(mine.isError, false, mine.content[0].text)
    await other.close()
  })
})
