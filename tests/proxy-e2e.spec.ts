// `dsh fetch` through a real proxy (tinyproxy on 127.0.0.1), from the real
// CLI: HTTPS_PROXY is honoured, the https target is tunnelled and its
// certificate checked (the throwaway localhost CA via NODE_EXTRA_CA_CERTS),
// the session log records the route, and a proxy credential stored with
// `dsh credentials set` is sent but appears nowhere in output or logs. `dsh
// search` takes the same way to its provider's API: the DeepSeek wire format
// answered over https by the same loopback server, reached only through the proxy.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startTinyproxy, startTlsFront, stunnelMissing, type TlsFront, type Tinyproxy, tinyproxyMissing } from './support/tinyproxy.js'
import { dsh, onlyJson, tempHome } from './helpers.js'

const TLS = new URL('../packages/web-fetch-http/tests/fixtures/tls-localhost/', import.meta.url)
const PROXY_PASSWORD = 'e2e-proxy-pass-0123456789'
const SEARCH_KEY = 'sk-proxy-e2e-search-key-0123456789'
const SEARCH_REPLY = JSON.parse(readFileSync(new URL('../packages/web-search-deepseek/tests/fixtures/deepseek-multi-result.json', import.meta.url), 'utf8'))

describe('dsh fetch through a proxy', { skip: tinyproxyMissing }, () => {
  let home: string
  let open: Tinyproxy
  let authed: Tinyproxy
  let server: Server
  let port: number
  const env = () => ({ NODE_EXTRA_CA_CERTS: new URL('ca.pem', TLS).pathname, NO_PROXY: undefined, no_proxy: undefined, https_proxy: undefined })

  before(async () => {
    home = await tempHome()
    open = await startTinyproxy()
    authed = await startTinyproxy({ basicAuth: ['dsh', PROXY_PASSWORD] })
    server = createServer({ key: readFileSync(new URL('localhost.key', TLS)), cert: readFileSync(new URL('localhost.pem', TLS)) }, (request, response) => {
      if (request.url === '/anthropic/v1/messages') {
        const keyed = request.headers['x-api-key'] === SEARCH_KEY
        response.writeHead(keyed ? SEARCH_REPLY.status : 401, { 'content-type': 'application/json' }).end(JSON.stringify(keyed ? SEARCH_REPLY.body : { error: 'no key' }))
        return
      }
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Through</title></head><body><main><h1>Through the proxy</h1><p>Reached ${request.url} on loopback.</p></main></body></html>`)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(async () => {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
    await Promise.all([open?.stop(), authed?.stop()])
    await rm(home, { recursive: true, force: true })
  })

  it('HTTPS_PROXY=... dsh fetch https://localhost:PORT/ goes through the proxy, and the session log says so', async () => {
    const result = await dsh(['fetch', `https://localhost:${port}/page`, '--private-host', 'localhost', '--format', 'text', '--json', '--session', 'through'], {
      home,
      env: { ...env(), HTTPS_PROXY: open.origin },
    })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.match(outcome.content, /Reached \/page on loopback/)
    assert.deepEqual(open.requests(), [`CONNECT localhost:${port} HTTP/1.1`])
    const log = await readFile(join(home, 'sessions', 'through', 'events.jsonl'), 'utf8')
    const audit = log.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((event) => event.type === 'web/http-document-fetch')
    assert.equal(audit.data.provenance.route, 'proxy')
    assert.equal(audit.data.provenance.proxy, open.origin)
  })

  it('sends proxy.credential from the credential store, and the password appears in no output or log', async () => {
    assert.equal((await dsh(['credentials', 'set', 'PROXY_AUTH'], { home, input: `dsh:${PROXY_PASSWORD}\n` })).code, 0)
    const overlay = join(home, 'proxy.cordis.yml')
    await writeFile(overlay, `- id: web-fetch-http\n  config:\n    privateHosts: [localhost]\n    proxy:\n      url: ${authed.origin}\n      credential: PROXY_AUTH\n`)
    const result = await dsh(['fetch', `https://localhost:${port}/secret-route`, '--config', overlay, '--format', 'text', '--json', '--session', 'authed'], { home, env: env() })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.deepEqual(authed.requests(), [`CONNECT localhost:${port} HTTP/1.1`])
    const log = await readFile(join(home, 'sessions', 'authed', 'events.jsonl'), 'utf8')
    for (const text of [log, result.stdout, result.stderr]) assert.ok(!text.includes(PROXY_PASSWORD), 'the proxy password must appear nowhere')

    // Without the credential, the proxy's refusal is the tool's error, naming the proxy and the setting.
    await writeFile(overlay, `- id: web-fetch-http\n  config:\n    privateHosts: [localhost]\n    proxy:\n      url: ${authed.origin}\n`)
    const refused = await dsh(['fetch', `https://localhost:${port}/`, '--config', overlay, '--json'], { home, env: env() })
    assert.equal(refused.code, 1)
    const shown = JSON.parse(refused.stdout)
    assert.equal(shown.isError, true)
    assert.match(JSON.stringify(shown), /WEB_PROXY_FAILED/)
    assert.match(shown.content, /proxy\.credential/)
  })

  it('HTTPS_PROXY=... dsh search reaches the provider API through the proxy, and the request event records the route', async () => {
    assert.equal((await dsh(['credentials', 'set', 'DEEPSEEK_API_KEY'], { home, input: `${SEARCH_KEY}\n` })).code, 0)
    const before = open.requests().length
    const result = await dsh(['search', 'node', 'lts', '--json', '--session', 'search-through'], {
      home,
      env: { ...env(), HTTPS_PROXY: open.origin, DEEPSEEK_SEARCH_BASE_URL: `https://localhost:${port}/anthropic` },
    })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.match(outcome.content, /nodejs\.org\/en\/about\/previous-releases/)
    assert.deepEqual(open.requests().slice(before), [`CONNECT localhost:${port} HTTP/1.1`])
    const log = await readFile(join(home, 'sessions', 'search-through', 'events.jsonl'), 'utf8')
    const request = log.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((event) => event.type === 'web/deepseek-search-llm-request')
    assert.equal(request.data.route, 'proxy')
    assert.equal(request.data.proxy, open.origin)
    assert.ok(!log.includes(SEARCH_KEY), 'the key must not be in the session log')

    // Without the proxy variable the same command goes direct, and the proxy sees nothing more.
    const direct = onlyJson(await dsh(['search', 'node', 'lts', '--json'], { home, env: { ...env(), DEEPSEEK_SEARCH_BASE_URL: `https://localhost:${port}/anthropic` } }))
    assert.equal(direct.isError, false, direct.content)
    assert.equal(open.requests().length, before + 1)
  })
})

// An HTTPS proxy: the client speaks TLS to the proxy itself (stunnel in front
// of tinyproxy, certificate for localhost from the throwaway CA), then CONNECT
// inside that TLS, then TLS to the target inside the tunnel.
describe('dsh fetch and dsh search through an https:// proxy', { skip: tinyproxyMissing || stunnelMissing }, () => {
  let home: string
  let proxy: Tinyproxy
  let front: TlsFront
  let server: Server
  let port: number
  const env = () => ({ NODE_EXTRA_CA_CERTS: new URL('ca.pem', TLS).pathname, NO_PROXY: undefined, no_proxy: undefined, https_proxy: undefined, HTTPS_PROXY: front.origin })

  before(async () => {
    home = await tempHome()
    proxy = await startTinyproxy()
    front = await startTlsFront(proxy.port, { cert: new URL('localhost.pem', TLS).pathname, key: new URL('localhost.key', TLS).pathname })
    server = createServer({ key: readFileSync(new URL('localhost.key', TLS)), cert: readFileSync(new URL('localhost.pem', TLS)) }, (request, response) => {
      if (request.url === '/anthropic/v1/messages') {
        response.writeHead(SEARCH_REPLY.status, { 'content-type': 'application/json' }).end(JSON.stringify(SEARCH_REPLY.body))
        return
      }
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>TLS proxy</title></head><body><main><h1>Through TLS</h1><p>Reached ${request.url} through the TLS proxy.</p></main></body></html>`)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(async () => {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
    await front?.stop()
    await proxy?.stop()
    await rm(home, { recursive: true, force: true })
  })

  it('fetches an https page: TLS to the proxy, CONNECT inside it, the target certificate checked inside the tunnel', async () => {
    const result = await dsh(['fetch', `https://localhost:${port}/tls-page`, '--private-host', 'localhost', '--format', 'text', '--json', '--session', 'tls-proxy'], { home, env: env() })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.match(outcome.content, /Reached \/tls-page through the TLS proxy/)
    assert.deepEqual(proxy.requests(), [`CONNECT localhost:${port} HTTP/1.1`])
    const log = await readFile(join(home, 'sessions', 'tls-proxy', 'events.jsonl'), 'utf8')
    const audit = log.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((event) => event.type === 'web/http-document-fetch')
    assert.equal(audit.data.provenance.route, 'proxy')
    assert.equal(audit.data.provenance.proxy, front.origin)
  })

  it('searches through it: the provider API is reached only by the TLS proxy', async () => {
    assert.equal((await dsh(['credentials', 'set', 'DEEPSEEK_API_KEY'], { home, input: `${SEARCH_KEY}\n` })).code, 0)
    const before = proxy.requests().length
    const outcome = onlyJson(await dsh(['search', 'node', 'lts', '--json'], { home, env: { ...env(), DEEPSEEK_SEARCH_BASE_URL: `https://localhost:${port}/anthropic` } }))
    assert.equal(outcome.isError, false, outcome.content)
    assert.deepEqual(proxy.requests().slice(before), [`CONNECT localhost:${port} HTTP/1.1`])
  })

  it('an https proxy whose certificate is not trusted is WEB_PROXY_FAILED, and nothing reaches the target', async () => {
    const before = proxy.requests().length
    const result = await dsh(['fetch', `https://localhost:${port}/untrusted`, '--private-host', 'localhost', '--json'], { home, env: { ...env(), NODE_EXTRA_CA_CERTS: undefined } })
    assert.equal(result.code, 1)
    const shown = JSON.parse(result.stdout)
    assert.equal(shown.isError, true)
    assert.match(JSON.stringify(shown), /WEB_PROXY_FAILED/)
    assert.match(shown.content, /presented a TLS certificate that was not accepted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\).*NODE_EXTRA_CA_CERTS/)
    assert.equal(proxy.requests().length, before)
  })
})
