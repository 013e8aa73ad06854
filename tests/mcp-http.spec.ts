import assert from 'node:assert/strict'
import { generateKeyPairSync, type KeyObject, sign as cryptoSign } from 'node:crypto'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { dsh, ROOT, tempHome } from './helpers.js'
import { connect, createToken, HttpDsh } from './mcp-http-process.js'
import { sessionEvents, untilSessionEvent } from './mcp-session-log.js'

/** A raw POST of `body`, for what the SDK's client never sends (a wrong Host, an Origin). */
function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: any }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })

describe('dsh mcp --http: two processes on one machine', () => {
  let home: string
  let first: HttpDsh
  let second: HttpDsh
  const tokens: Record<string, string> = {}
  const clients: Client[] = []
  before(async () => {
    home = await tempHome()
    const overlay = join(home, 'tools.cordis.yml')
    await writeFile(overlay, `- id: echo\n  name: dsh-test-plugins/echo-tool\n  config: { prefix: http }\n- id: gate\n  name: dsh-test-plugins/gate-tool\n`)
    for (const name of ['alice', 'bob', 'carol', 'dave']) tokens[name] = await createToken(home, name)
    const common = ['--preset', 'minimal', '--config', overlay]
    ;[first, second] = await Promise.all([
      HttpDsh.start([...common, '--max-body-bytes', '65536'], home),
      HttpDsh.start([...common, '--calls-per-minute', '5', '--max-concurrent-calls', '2'], home),
    ])
  })
  after(async () => {
    for (const client of clients) await client.close().catch(() => {})
    await Promise.all([first?.stop(), second?.stop()])
    await rm(home, { recursive: true, force: true })
  })

  async function client(server: HttpDsh, token: string): Promise<Client> {
    const connected = await connect(server.url, token)
    clients.push(connected)
    return connected
  }

  it('lists and calls through both processes with one token, each recording the calls in a session that names the token', async () => {
    for (const server of [first, second]) {
      const alice = await client(server, tokens.alice)
      assert.equal(alice.getServerVersion()?.name, 'dsh')
      const { version } = JSON.parse(await readFile(join(ROOT, 'packages/mcp/package.json'), 'utf8'))
      assert.equal(alice.getServerVersion()?.version, version)
      const { tools } = await alice.listTools()
      assert.deepEqual(tools.map((tool) => tool.name), ['echo', 'wait_for_file'])
      assert.deepEqual(tools[0].annotations, { title: 'Echo', readOnlyHint: true, openWorldHint: false })
      const result: any = await alice.callTool({ name: 'echo', arguments: { text: `via ${server.port}` } })
      assert.equal(result.isError, false)
      assert.deepEqual(result.content, [{ type: 'text', text: `http: via ${server.port}` }])
    }
    const sessions = await sessionEvents(home)
    const ofAlice = sessions.filter((events) => events[0].type === 'mcp/session-start' && events[0].data.token === 'alice')
    assert.equal(ofAlice.length, 2, 'one session per process for the token')
    for (const server of [first, second]) {
      const events = ofAlice.find((log) => log[0].data.address === server.url)
      assert.ok(events, `a session of ${server.url}`)
      assert.equal(events[0].data.transport, 'http')
      assert.ok(events.some((event) => event.type === 'tool/result' && event.data.content === `http: via ${server.port}`))
    }
  })

  it('answers clients of each protocol version in use (2025-11-25 back to 2024-11-05), without a session id', async () => {
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      const hello = await post(first.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }), { authorization: `Bearer ${tokens.alice}` })
      assert.equal(hello.status, 200)
      assert.equal(hello.json.result.protocolVersion, version)
      assert.equal(hello.headers['mcp-session-id'], undefined, 'stateless: no session to stick to')
    }
  })

  it('refuses a request without a token, and one with a bad token, with 401 and a Bearer challenge', async () => {
    for (const server of [first, second]) {
      const missing = await post(server.url, LIST, {})
      assert.equal(missing.status, 401)
      assert.equal(missing.headers['www-authenticate'], 'Bearer realm="dsh-mcp"')
      assert.match(missing.json.error.message, /needs a bearer token/)
      const bad = await post(server.url, LIST, { authorization: 'Bearer dsh_not-a-real-token' })
      assert.equal(bad.status, 401)
      assert.match(String(bad.headers['www-authenticate']), /^Bearer realm="dsh-mcp", error="invalid_token"/)
    }
    await assert.rejects(connect(first.url), /HTTP 401|401|needs a bearer token/)
  })

  it('refuses a token revoked with the CLI while both servers run, from the next request on, in both', async () => {
    const bobs = [await client(first, tokens.bob), await client(second, tokens.bob)]
    for (const bob of bobs) assert.equal(((await bob.callTool({ name: 'echo', arguments: { text: 'before' } })) as any).isError, false)
    const revoked = await dsh(['mcp', 'token', 'revoke', 'bob'], { home })
    assert.equal(revoked.code, 0, revoked.stderr)
    for (const bob of bobs) {
      await assert.rejects(bob.callTool({ name: 'echo', arguments: { text: 'after' } }), (error: any) => {
        assert.equal(error.code, 401)
        assert.match(error.message, /the token \\"bob\\" was revoked/)
        return true
      })
    }
    const raw = await post(second.url, LIST, { authorization: `Bearer ${tokens.bob}` })
    assert.match(String(raw.headers['www-authenticate']), /error="invalid_token", error_description="token revoked"/)
  })

  it('refuses a foreign Origin and a foreign Host with 403 (DNS rebinding), before looking at the token', async () => {
    const origin = await post(first.url, LIST, { origin: 'http://evil.example', authorization: `Bearer ${tokens.alice}` })
    assert.equal(origin.status, 403)
    assert.match(origin.json.error.message, /requests from the web origin "http:\/\/evil\.example" are not allowed/)
    const host = await post(first.url, LIST, { host: `evil.example:${first.port}`, authorization: `Bearer ${tokens.alice}` })
    assert.equal(host.status, 403)
    assert.match(host.json.error.message, /the Host header "evil\.example:\d+" is not one this server answers/)
    const own = await post(first.url, LIST, { origin: `http://localhost:${first.port}`, host: `localhost:${first.port}`, authorization: `Bearer ${tokens.alice}`, 'mcp-protocol-version': '2025-06-18' })
    assert.equal(own.status, 200)
    assert.deepEqual(own.json.result.tools.map((tool: any) => tool.name), ['echo', 'wait_for_file'])
  })

  it('answers a body over --max-body-bytes with 413 and a JSON-RPC error naming the limit', async () => {
    const alice = await client(first, tokens.alice)
    await assert.rejects(alice.callTool({ name: 'echo', arguments: { text: 'x'.repeat(100_000) } }), (error: any) => {
      assert.equal(error.code, 413)
      assert.match(error.message, /more than the limit of 65536 bytes per request \(dsh mcp --http --max-body-bytes 65536\)/)
      return true
    })
    const raw = await post(first.url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'y'.repeat(70_000) } } }), { authorization: `Bearer ${tokens.alice}` })
    assert.equal(raw.status, 413)
    assert.equal(raw.json.error.data.limit, '--max-body-bytes 65536')
    // The server carries on.
    assert.equal(((await alice.callTool({ name: 'echo', arguments: { text: 'small' } })) as any).isError, false)
  })

  it('answers the call over --calls-per-minute with a JSON-RPC error naming the limit, for that token only', async () => {
    const dave = await client(second, tokens.dave)
    for (let call = 0; call < 5; call++) assert.equal(((await dave.callTool({ name: 'echo', arguments: { text: `call ${call}` } })) as any).isError, false)
    await assert.rejects(dave.callTool({ name: 'echo', arguments: { text: 'one too many' } }), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error))
      assert.match(error.message, /the token "dave" started 5 tool calls in the last minute in this process, the limit \(dsh mcp --http --calls-per-minute 5\)/)
      assert.equal((error.data as any).code, 'CALL_RATE_LIMITED')
      assert.ok((error.data as any).retryAfterSeconds >= 1)
      return true
    })
    // Listing is not a call, and another token has its own budget.
    await dave.listTools()
    const alice = await client(second, tokens.alice)
    assert.equal(((await alice.callTool({ name: 'echo', arguments: { text: 'mine' } })) as any).isError, false)
  })

  it('answers the call over --max-concurrent-calls with a JSON-RPC error naming the limit; the calls in flight complete', async () => {
    const carol = await client(second, tokens.carol)
    const gate = join(home, 'open')
    const running = [carol.callTool({ name: 'wait_for_file', arguments: { path: gate } }), carol.callTool({ name: 'wait_for_file', arguments: { path: gate } })]
    // The two requests travel on their own connections: the third is sent only once both are admitted
    // (each has its tool/call event), or it could overtake one of them and be the call that is running.
    const waiting = (event: any) => event.type === 'tool/call' && event.data.tool === 'wait_for_file' && event.data.input?.path === gate
    const first = await untilSessionEvent(home, waiting)
    await untilSessionEvent(home, (event) => waiting(event) && event.data.callId !== first.data.callId)
    // The give-up time only keeps a server without the cap from hanging the suite; nothing here is timed.
    await assert.rejects(carol.callTool({ name: 'wait_for_file', arguments: { path: gate } }, undefined, { timeout: 60_000 }), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error))
      assert.match(error.message, /2 tool calls of the token "carol" are already running in this process, the limit \(dsh mcp --http --max-concurrent-calls 2\)/)
      assert.equal((error.data as any).code, 'TOO_MANY_CALLS')
      return true
    })
    await writeFile(gate, '')
    for (const result of (await Promise.all(running)) as any[]) assert.equal(result.content[0].text, `found ${gate}`)
  })

  it('cancels a call when the client cancels the request', async () => {
    const alice = await client(first, tokens.alice)
    const controller = new AbortController()
    const pending = alice.callTool({ name: 'echo', arguments: { text: 'slow' } }, undefined, { signal: controller.signal })
    pending.catch(() => {})
    // Cancelled once the server has started the call (its tool/call event), not after a guessed delay.
    const started = await untilSessionEvent(home, (event) => event.type === 'tool/call' && event.data.input?.text === 'slow')
    controller.abort('the user changed their mind')
    await assert.rejects(pending)
    const result = await untilSessionEvent(home, (event) => event.type === 'tool/result' && event.data.callId === started.data.callId)
    assert.equal(result.data.error?.code, 'WEB_ABORTED')
  })
})

describe('dsh mcp --http --no-auth', () => {
  let home: string
  before(async () => {
    home = await tempHome()
  })
  after(async () => {
    await rm(home, { recursive: true, force: true })
  })

  it('is refused on an address that is not loopback', async () => {
    const result = await dsh(['mcp', '--http', '0.0.0.0:0', '--no-auth', '--allowed-host', '*', '--preset', 'minimal'], { home })
    assert.equal(result.code, 2)
    assert.match(result.stderr, /--no-auth is accepted only on a loopback address/)
  })

  it('serves without a token on loopback and says so at start', async () => {
    const server = await HttpDsh.start(['--no-auth', '--preset', 'minimal'], home)
    try {
      assert.match(server.stderr, /warning: authentication is off \(--no-auth\)/)
      const client = await connect(server.url)
      assert.deepEqual((await client.listTools()).tools, [])
      await client.close()
    } finally {
      await server.stop()
    }
  })
})

/** A loopback OAuth authorization server: RFC 8414 metadata and a key set; the test signs the tokens. */
async function authorizationServer() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'key-1', alg: 'RS256', use: 'sig' }
  let issuer = ''
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    if (req.url === '/.well-known/oauth-authorization-server') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }))
    else if (req.url === '/jwks') res.end(JSON.stringify({ keys: [jwk] }))
    else res.writeHead(404).end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const sign = (claims: Record<string, unknown>, key: KeyObject = privateKey) => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const body = `${encode({ alg: 'RS256', typ: 'at+jwt', kid: 'key-1' })}.${encode(claims)}`
    return `${body}.${cryptoSign('sha256', Buffer.from(body), key).toString('base64url')}`
  }
  return { issuer, sign, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }) }
}

describe('dsh mcp --http with OAuth access tokens', () => {
  const audience = 'https://tools.example.test/mcp'
  let home: string
  let issuer: Awaited<ReturnType<typeof authorizationServer>>
  let server: HttpDsh
  before(async () => {
    home = await tempHome()
    issuer = await authorizationServer()
    const overlay = join(home, 'echo.cordis.yml')
    await writeFile(overlay, `- id: echo\n  name: dsh-test-plugins/echo-tool\n  config: { prefix: oauth }\n`)
    server = await HttpDsh.start(['--preset', 'minimal', '--config', overlay, '--oauth-issuer', issuer.issuer, '--oauth-audience', audience], home)
  })
  after(async () => {
    await server?.stop()
    await issuer?.close()
    await rm(home, { recursive: true, force: true })
  })

  const claims = (extra: Record<string, unknown> = {}) => ({ iss: issuer.issuer, aud: audience, sub: 'agent-7', exp: Math.floor(Date.now() / 1000) + 600, ...extra })

  it('accepts a JWT of the issuer for this resource, and records its subject as the caller', async () => {
    const client = await connect(server.url, issuer.sign(claims()))
    const result: any = await client.callTool({ name: 'echo', arguments: { text: 'signed' } })
    assert.deepEqual(result.content, [{ type: 'text', text: 'oauth: signed' }])
    await client.close()
    const [events] = await sessionEvents(home)
    assert.equal(events[0].type, 'mcp/session-start')
    assert.equal(events[0].data.token, 'oauth:agent-7')
    const hello = await post(server.url, LIST, { authorization: `Bearer ${issuer.sign(claims())}`, 'mcp-protocol-version': '2025-06-18' })
    assert.equal(hello.status, 200)
  })

  it('refuses a token for another audience, an expired one, one from another issuer and one signed with another key, with the reason', async () => {
    const { privateKey: stranger } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const cases: [string, string][] = [
      [issuer.sign(claims({ aud: 'https://elsewhere.test/mcp' })), 'issued for another resource (aud)'],
      [issuer.sign(claims({ exp: Math.floor(Date.now() / 1000) - 3600 })), 'token expired'],
      [issuer.sign(claims({ iss: 'https://other-issuer.test' })), 'issued by another server'],
      [issuer.sign(claims(), stranger), 'bad signature'],
    ]
    for (const [token, reason] of cases) {
      const refused = await post(server.url, LIST, { authorization: `Bearer ${token}` })
      assert.equal(refused.status, 401, reason)
      assert.match(String(refused.headers['www-authenticate']), new RegExp(`error="invalid_token", error_description="${reason.replace(/[()]/g, '\\$&')}", resource_metadata="https://tools\\.example\\.test/\\.well-known/oauth-protected-resource/mcp"`))
    }
  })

  it('serves the protected-resource metadata document the challenge points to', async () => {
    const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', server.url))
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { resource: audience, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'] })
  })
})
