// The kit's client takes the route chooseRoute names: through a real
// tinyproxy on 127.0.0.1 (its log read back) when HTTP_PROXY is set, direct
// for a NO_PROXY host; the log-only request event records the route.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { type AddressInfo, createServer as createNetServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { PROXY_TUNNEL_ATTEMPTS, type SessionHandle } from 'dsh-host'
import { appendRequestEvent, createModelApiClient } from 'dsh-provider-kit'
import { WebError } from 'dsh-web'
import { type Tinyproxy, startTinyproxy, tinyproxyMissing } from '../../../tests/support/tinyproxy.js'

describe('model-API client through a proxy', { skip: tinyproxyMissing }, () => {
  let proxy: Tinyproxy
  let api: ReturnType<typeof createServer>
  let port: number
  before(async () => {
    proxy = await startTinyproxy()
    api = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'))
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve))
    port = (api.address() as AddressInfo).port
  })
  after(async () => {
    await proxy?.stop()
    await new Promise((resolve) => api?.close(resolve))
  })

  async function search(env: Record<string, string>) {
    return (await attempt(env)).events
  }

  async function attempt(env: Record<string, string>) {
    const events: { [key: string]: unknown }[] = []
    const session = { id: 's', append: async (_type: string, data: { [key: string]: unknown }) => void events.push(data) } as unknown as SessionHandle
    const client = createModelApiClient(
      { providerId: 'test', providerName: 'Test', baseURLEnv: 'TEST_BASE_URL', credential: 'optional', endpoint: (base) => new URL('/v1/search', base) },
      { baseURL: `http://localhost:${port}`, timeoutMs: 10_000 },
      { env, resolveCredential: async () => { throw new WebError('WEB_PROVIDER_CREDENTIAL_MISSING') } },
    )
    try {
      const call = { signal: new AbortController().signal, session }
      const started = await client.startSearch({ query: 'q' }, call)
      const answer = await started.request({ headers: {}, body: '{}', beforeDispatch: () => appendRequestEvent(call, 'test/request', () => ({})), toError: () => new WebError('WEB_PROVIDER_ERROR') })
      assert.equal(answer.text, '{"ok":true}')
      return { events }
    } catch (error) {
      return { events, error }
    } finally {
      await client.close()
    }
  }

  it('goes through the proxy and records it; a NO_PROXY host goes direct', async () => {
    const through = await search({ HTTP_PROXY: proxy.origin })
    assert.deepEqual(proxy.requests(), [`CONNECT localhost:${port} HTTP/1.1`])
    assert.deepEqual(through, [{ route: 'proxy', proxy: proxy.origin }])
    const direct = await search({ HTTP_PROXY: proxy.origin, NO_PROXY: 'localhost' })
    assert.equal(proxy.requests().length, 1, 'the proxy saw nothing more')
    assert.deepEqual(direct, [{ route: 'direct' }])
  })

  it('a proxy that is down, or refuses the tunnel, is WEB_PROXY_FAILED naming the proxy and the setting, not a provider error', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const down = (await attempt({ HTTP_PROXY: `http://127.0.0.1:${closedPort}` })).error as WebError
    assert.equal(down?.code, 'WEB_PROXY_FAILED', String(down))
    assert.match(down.message, new RegExp(`The proxy http://127\\.0\\.0\\.1:${closedPort} could not be reached \\(ECONNREFUSED\\) for Test .*the environment variable HTTP_PROXY`))

    const refusing = createServer()
    refusing.on('connect', (_request, socket) => socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n'))
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve))
    try {
      const origin = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`
      const refused = (await attempt({ HTTP_PROXY: origin })).error as WebError
      assert.equal(refused?.code, 'WEB_PROXY_FAILED', String(refused))
      assert.equal(refused.details.status, 403)
      assert.equal(refused.retryable, false)
      assert.match(refused.message, /refused the tunnel with 403/)
    } finally {
      await new Promise((resolve) => refusing.close(resolve))
    }
  })
})

describe('model-API client through a proxy that accepts and closes without answering', () => {
  it('makes at most PROXY_TUNNEL_ATTEMPTS connections per search, then WEB_PROXY_FAILED naming the proxy (never its credentials) and what it did', async () => {
    // Counts connections; past 200 it stops listening, so a storm ends (ECONNREFUSED) instead of starving the test.
    let connections = 0
    const closing = createNetServer((socket) => {
      connections++
      if (connections >= 200) closing.close()
      socket.on('error', () => {})
      socket.once('data', () => socket.destroy())
    })
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(closing.address() as AddressInfo).port}`
    const client = createModelApiClient(
      { providerId: 'test', providerName: 'Test', baseURLEnv: 'TEST_BASE_URL', credential: 'optional', endpoint: (base) => new URL('/v1/search', base) },
      // Port 9 on loopback: nothing is ever sent there, the tunnel never opens.
      { baseURL: 'https://localhost:9', timeoutMs: 60_000 },
      { env: { HTTPS_PROXY: origin.replace('//', '//user:hunter2@') }, resolveCredential: async () => { throw new WebError('WEB_PROVIDER_CREDENTIAL_MISSING') } },
    )
    try {
      for (let search = 1; search <= 2; search++) {
        connections = 0
        const call = { signal: new AbortController().signal }
        const started = await client.startSearch({ query: 'q' }, call)
        const error = await started.request({ headers: {}, body: '{}', beforeDispatch: async () => {}, toError: () => new WebError('WEB_PROVIDER_ERROR') }).then(
          () => assert.fail('expected WEB_PROXY_FAILED'),
          (failure: unknown) => failure as WebError,
        )
        assert.equal(error.code, 'WEB_PROXY_FAILED', String(error))
        assert.ok(connections >= 1 && connections <= PROXY_TUNNEL_ATTEMPTS, `search ${search}: ${connections} connections`)
        assert.equal(error.details.proxy, origin)
        assert.match(error.message, new RegExp(`^The proxy ${origin.replace(/\./g, '\\.')} closed the connection without answering the CONNECT for Test at https://localhost:9/v1/search, ${PROXY_TUNNEL_ATTEMPTS} times in a row.*HTTPS_PROXY`))
        assert.doesNotMatch(error.message, /hunter2|user:/)
      }
    } finally {
      await client.close()
      await new Promise((resolve) => closing.close(resolve))
    }
  })
})

describe('model-API client endpoint host names', () => {
  it('routes and sends the canonical host; a base URL whose host a proxy reads otherwise is INVALID_ARGUMENT, not a crash', async () => {
    const client = createModelApiClient(
      { providerId: 'test', providerName: 'Test', baseURLEnv: 'TEST_BASE_URL', credential: 'optional', endpoint: (base) => new URL('/v1/search', base) },
      { baseURL: 'http://api..test', timeoutMs: 10_000 },
      { env: {}, resolveCredential: async () => { throw new WebError('WEB_PROVIDER_CREDENTIAL_MISSING') } },
    )
    try {
      const error = await client.startSearch({ query: 'q' }, { signal: new AbortController().signal }).then(
        () => assert.fail('expected INVALID_ARGUMENT'),
        (failure: unknown) => failure as WebError,
      )
      assert.ok(WebError.is(error), String(error))
      assert.equal(error.code, 'INVALID_ARGUMENT')
      assert.match(error.message, /The Test endpoint http:\/\/api\.\.test\/v1\/search: The host "api\.\.test" is not a host name .* empty label/)
    } finally {
      await client.close()
    }
  })
})
