// Every way a page can reach for an internal service, each its own test,
// against the real Chromium: the page's own server on 127.0.0.1 is trusted
// (privateHosts), and listeners that stand for internal services sit on
// 127.0.0.2, behind `localhost`, on [::1] and behind a name the test
// resolver answers with 127.0.0.3. They must see nothing, while a legitimate
// subresource of the same page is fetched (the page really ran), and the
// refusal is recorded in the provenance.
import assert from 'node:assert/strict'
import { type Socket as UdpSocket, createSocket } from 'node:dgram'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import type { BrowserFetcher } from '../src/browser-fetcher.js'
import { chromiumMissing, listen, type Listener, testFetcher, testLookup } from './helpers.js'

const INTERNAL_NAME = 'internal-service.example.com'

const VECTORS: Record<string, (target: string) => string> = {
  img: (target) => `<img src="${target}">`,
  fetch: (target) => `<script>fetch(${JSON.stringify(target)}).catch(() => {})</script>`,
  XMLHttpRequest: (target) => `<script>const x = new XMLHttpRequest(); x.open('GET', ${JSON.stringify(target)}); x.send()</script>`,
  WebSocket: (target) => `<script>try { new WebSocket(${JSON.stringify(target.replace(/^http/, 'ws'))}) } catch {}</script>`,
  EventSource: (target) => `<script>const events = new EventSource(${JSON.stringify(target)}); setTimeout(() => events.close(), 2000)</script>`,
  iframe: (target) => `<iframe src="${target}"></iframe>`,
}

function page(body: string): string {
  return `<html><head><title>Leak test</title></head><body><main><h1>Leak test page</h1><p>This page tries to reach an internal service.</p>
<img src="/legit.png" alt="">${body}</main></body></html>`
}

describe('the browser reaches no internal listener', { skip: chromiumMissing }, () => {
  let site: Listener
  let untrusted: Listener
  let behindLocalhost: Listener
  let ipv6: Listener
  let behindName: Listener
  let stun: UdpSocket
  let stunPackets = 0
  let fetcher: BrowserFetcher
  const pages = new Map<string, string>()

  before(async () => {
    site = await listen('127.0.0.1', (request, response) => {
      const url = new URL(request.url ?? '/', 'http://x')
      if (url.pathname === '/legit.png') return void response.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'))
      if (url.pathname === '/redirect') return void response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end()
      if (url.pathname === '/sw.js') return void response.writeHead(200, { 'content-type': 'text/javascript' }).end("self.addEventListener('install', () => {})")
      const html = pages.get(url.pathname)
      if (html) return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
      response.writeHead(404).end()
    })
    untrusted = await listen('127.0.0.2')
    behindLocalhost = await listen('127.0.0.1')
    ipv6 = await listen('::1')
    behindName = await listen('127.0.0.3')
    stun = createSocket('udp4')
    stun.on('message', () => stunPackets++)
    await new Promise<void>((resolve) => stun.bind(0, '127.0.0.1', resolve))
    fetcher = testFetcher({ lookup: testLookup({ [INTERNAL_NAME]: '127.0.0.3' }) })
  })
  after(async () => {
    await fetcher?.close()
    await Promise.all([site, untrusted, behindLocalhost, ipv6, behindName].map((listener) => listener?.close()))
    stun?.close()
  })

  const targets: [what: string, listener: () => Listener, url: () => string, shown: () => string][] = [
    ['an untrusted loopback address (127.0.0.2)', () => untrusted, () => `http://127.0.0.2:${untrusted.port}/secret`, () => `127.0.0.2:${untrusted.port}`],
    ['localhost', () => behindLocalhost, () => `http://localhost:${behindLocalhost.port}/secret`, () => `localhost:${behindLocalhost.port}`],
    ['[::1]', () => ipv6, () => `http://[::1]:${ipv6.port}/secret`, () => `[::1]:${ipv6.port}`],
    [`a name the resolver answers with 127.0.0.3 (${INTERNAL_NAME})`, () => behindName, () => `http://${INTERNAL_NAME}:${behindName.port}/secret`, () => `${INTERNAL_NAME}:${behindName.port}`],
  ]

  /** Renders a page made of `body` and checks what every leak test checks. */
  async function renderLeak(path: string, body: string, listener: Listener, shown: string) {
    pages.set(path, page(body))
    const before = site.hits.length
    const result = await fetcher.fetch({ url: `${site.origin}${path}` })
    assert.match(result.text, /Leak test page/)
    assert.ok(site.hits.slice(before).includes('GET /legit.png'), `the page's own image was fetched: ${site.hits.slice(before).join(', ')}`)
    assert.equal(listener.connections, 0, `the internal listener was reached: ${listener.hits.join(', ')}`)
    assert.deepEqual(listener.hits, [])
    return result
  }

  for (const [vector, make] of Object.entries(VECTORS)) {
    for (const [what, listener, url, shown] of targets) {
      it(`${vector} aimed at ${what} is refused, and the listener sees nothing`, async () => {
        const result = await renderLeak(`/${vector}-${shown().replace(/[^a-z0-9]/gi, '_')}`, make(url()), listener(), shown())
        const refused = result.provenance.refused!
        assert.ok(refused.first.some((entry) => entry.url.includes(shown()) && (entry.code === 'WEB_BLOCKED_ADDRESS' || entry.code === 'WEB_BLOCKED_URL')), JSON.stringify(refused))
      })
    }
  }

  it('a subresource that redirects to an untrusted loopback address is refused at the hop', async () => {
    const target = `http://127.0.0.2:${untrusted.port}/after-redirect`
    const result = await renderLeak('/redirected-image', `<img src="/redirect?to=${encodeURIComponent(target)}">`, untrusted, `127.0.0.2:${untrusted.port}`)
    assert.ok(site.hits.some((hit) => hit.startsWith('GET /redirect?')), 'the first hop was asked for')
    assert.ok(result.provenance.refused!.first.some((entry) => entry.url.includes(`127.0.0.2:${untrusted.port}`) && entry.code === 'WEB_BLOCKED_ADDRESS'), JSON.stringify(result.provenance.refused))
  })

  it('a top-level navigation that redirects to an untrusted loopback address fails with WEB_BLOCKED_ADDRESS', async () => {
    const target = `http://127.0.0.2:${untrusted.port}/navigated`
    await assert.rejects(fetcher.fetch({ url: `${site.origin}/redirect?to=${encodeURIComponent(target)}` }), (error: unknown) => {
      assert.ok(WebError.is(error), String(error))
      assert.equal(error.code, 'WEB_BLOCKED_ADDRESS', error.message)
      assert.match(error.message, /127\.0\.0\.2/)
      return true
    })
    assert.equal(untrusted.connections, 0)
  })

  for (const rel of ['prefetch', 'preconnect', 'dns-prefetch']) {
    it(`<link rel=${rel}> to an internal service reaches nothing`, async () => {
      const href = rel === 'dns-prefetch' ? `//${INTERNAL_NAME}` : rel === 'preconnect' ? `http://127.0.0.2:${untrusted.port}` : `http://127.0.0.2:${untrusted.port}/prefetched`
      const listener = rel === 'dns-prefetch' ? behindName : untrusted
      await renderLeak(`/link-${rel}`, `<link rel="${rel}" href="${href}">`, listener, '')
    })
  }

  it('a service worker is not registered, and its script is never fetched', async () => {
    const result = await renderLeak(
      '/service-worker',
      `<p id="sw">pending</p><script>navigator.serviceWorker.register('/sw.js').then(() => { document.getElementById('sw').textContent = 'service worker registered' }, (error) => { document.getElementById('sw').textContent = 'service worker refused: ' + error.name })</script>`,
      untrusted,
      '',
    )
    assert.match(result.text, /service worker refused: SecurityError/)
    assert.ok(!site.hits.includes('GET /sw.js'), site.hits.join(', '))
  })

  it('WebRTC sends no STUN packet to a loopback UDP listener', async () => {
    const port = (stun.address() as { port: number }).port
    const result = await renderLeak(
      '/webrtc',
      `<p id="rtc">gathering</p><script>
        const peer = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${port}' }] })
        peer.createDataChannel('probe')
        const done = () => { document.getElementById('rtc').textContent = 'ICE gathering ' + peer.iceGatheringState }
        peer.onicegatheringstatechange = () => { if (peer.iceGatheringState === 'complete') done() }
        peer.createOffer().then((offer) => peer.setLocalDescription(offer))
        setTimeout(done, 3000)
      </script>`,
      untrusted,
      '',
    )
    assert.match(result.text, /ICE gathering (complete|gathering)/)
    assert.equal(stunPackets, 0)
  })
})
