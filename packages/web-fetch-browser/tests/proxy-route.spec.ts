// With the operator's HTTPS_PROXY and HTTP_PROXY pointed at a real proxy
// (tinyproxy on 127.0.0.1), the browser's traffic leaves through it: the
// vetting proxy hands each vetted name to it, and a private literal or a
// name that resolves to a private address never reaches it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTinyproxy, type Tinyproxy, tinyproxyMissing } from '../../../tests/support/tinyproxy.js'
import type { BrowserFetcher } from '../src/browser-fetcher.js'
import { answerWebSocket, chromiumMissing, listen, type Listener, testFetcher, testLookup } from './helpers.js'

const INTERNAL_NAME = 'internal-service.example.com'

describe('the browser through the operator\'s proxy', { skip: chromiumMissing || tinyproxyMissing }, () => {
  let site: Listener
  let untrusted: Listener
  let ipv6: Listener
  let tinyproxy: Tinyproxy
  let fetcher: BrowserFetcher

  before(async () => {
    untrusted = await listen('127.0.0.2')
    ipv6 = await listen('::1')
    site = await listen('127.0.0.1', (request, response) => {
      if (request.url === '/data.json') return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'Fetched through the operator proxy by the page script.' }))
      if (request.url === '/through') {
        return void response.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Through</title></head><body><main><h1>Through the proxy</h1><p id="data">waiting</p>
<img src="http://127.0.0.2:${untrusted.port}/private-literal"><img src="http://[::1]:${ipv6.port}/private-literal">
<img src="http://${INTERNAL_NAME}:${untrusted.port}/private-name">
<p id="socket">no socket message</p>
<script>fetch('/data.json').then((r) => r.json()).then((data) => { document.getElementById('data').textContent = data.text })
const socket = new WebSocket('ws://' + location.host + '/live')
socket.onmessage = (event) => { document.getElementById('socket').textContent = 'The socket said: ' + event.data; socket.close() }</script></main></body></html>`)
      }
      response.writeHead(404).end()
    }, answerWebSocket('tunnelled through the operator proxy'))
    tinyproxy = await startTinyproxy()
    fetcher = testFetcher({ env: { HTTPS_PROXY: tinyproxy.origin, HTTP_PROXY: tinyproxy.origin }, lookup: testLookup({ [INTERNAL_NAME]: '127.0.0.2' }) })
  })
  after(async () => {
    await fetcher?.close()
    await tinyproxy?.stop()
    await Promise.all([site, untrusted, ipv6].map((listener) => listener?.close()))
  })

  it('the page and its script\'s request go through the proxy (its log), private literals and names never reach it', async () => {
    const result = await fetcher.fetch({ url: `${site.origin}/through` })
    assert.match(result.text, /Fetched through the operator proxy by the page script/)
    // The WebSocket's tunnel: the vetting proxy's own CONNECT to the upstream proxy.
    assert.match(result.text, /The socket said: tunnelled through the operator proxy/)
    assert.equal(result.provenance.route, 'proxy')
    assert.equal(result.provenance.proxy, tinyproxy.origin)
    const requests = tinyproxy.requests()
    assert.ok(requests.some((line) => line.includes(`127.0.0.1:${site.port}`)), requests.join('\n'))
    assert.ok(requests.some((line) => line.startsWith(`CONNECT 127.0.0.1:${site.port}`)), requests.join('\n'))
    assert.ok(site.hits.includes('GET /data.json'), site.hits.join(', '))
    for (const line of requests) assert.doesNotMatch(line, /127\.0\.0\.2|::1|internal-service/, line)
    assert.equal(untrusted.connections + ipv6.connections, 0)
    const refused = result.provenance.refused!.first.map((entry) => entry.url).join(' ')
    for (const target of [`127.0.0.2:${untrusted.port}`, `[::1]:${ipv6.port}`, INTERNAL_NAME]) assert.ok(refused.includes(target), `${target} in ${refused}`)
  })
})
