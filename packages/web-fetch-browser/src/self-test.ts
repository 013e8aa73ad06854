import { createSocket } from 'node:dgram'
import { type Server, createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { WebError } from 'dsh-web'
import { type BrowserFetcherOptions, createBrowserFetcher } from './browser-fetcher.js'
import type { SandboxState } from './chromium-process.js'

export interface ContainmentCheck {
  name: string
  ok: boolean
  detail: string
}

export interface ContainmentReport {
  /** Every check held: the page ran, and nothing of it reached the untrusted listeners. */
  contained: boolean
  version?: string
  sandbox: SandboxState
  checks: ContainmentCheck[]
}

const PIXEL = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64')

/** A loopback server counting its connections; closed with every socket. */
async function listenCounting(host: string, handler: Parameters<typeof createServer>[1]) {
  const server: Server = createServer(handler)
  const sockets = new Set<Socket>()
  const counter = { connections: 0 }
  server.on('connection', (socket) => {
    counter.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('upgrade', (_request, socket) => socket.destroy())
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const close = async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  }
  return { port, counter, close }
}

/**
 * The loopback self-test `dsh doctor` runs: a browser of its own renders a
 * page on 127.0.0.1 (trusted for this test only) that reaches for a listener
 * on 127.0.0.2 with an image, fetch() and a WebSocket, and sends WebRTC's
 * STUN to a loopback UDP port. Contained when the page ran (its own image
 * was fetched), the listener saw no connection, no UDP packet arrived and
 * the refusals were recorded. Nothing leaves loopback.
 */
export async function selfTestContainment(options: Pick<BrowserFetcherOptions, 'executablePath' | 'timeoutMs'> = {}): Promise<ContainmentReport> {
  let ownImage = 0
  const internal = await listenCounting('127.0.0.2', (_request, response) => response.end('internal'))
  const udp = createSocket('udp4')
  let packets = 0
  udp.on('message', () => packets++)
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve))
  const stunPort = (udp.address() as AddressInfo).port
  const target = `127.0.0.2:${internal.port}`
  const page = await listenCounting('127.0.0.1', (request, response) => {
    if (request.url === '/own.gif') {
      ownImage++
      return void response.writeHead(200, { 'content-type': 'image/gif' }).end(PIXEL)
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><head><title>dsh self-test</title></head><body><main><h1>Containment self-test</h1><p id="rtc">WebRTC did not run</p>
<img src="/own.gif"><img src="http://${target}/image">
<script>
fetch('http://${target}/fetch').catch(() => {})
try { new WebSocket('ws://${target}/socket') } catch {}
const peer = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${stunPort}' }] })
peer.createDataChannel('probe')
const done = () => { document.getElementById('rtc').textContent = 'ICE gathering ' + peer.iceGatheringState }
peer.onicegatheringstatechange = () => { if (peer.iceGatheringState === 'complete') done() }
peer.createOffer().then((offer) => peer.setLocalDescription(offer))
setTimeout(done, 3000)
</script></main></body></html>`)
  })
  const fetcher = createBrowserFetcher({ ...options, env: {}, privateHosts: ['127.0.0.1'], cacheTtlMs: 0, proxy: { noProxy: ['*'] } })
  const checks: ContainmentCheck[] = []
  try {
    let refused: string[] = []
    try {
      const result = await fetcher.fetch({ url: `http://127.0.0.1:${page.port}/`, format: 'text' })
      refused = result.provenance.refused?.first.map((entry) => entry.url) ?? []
      const scripted = /ICE gathering \w+/.test(result.text)
      checks.push({ name: 'the page ran', ok: scripted && ownImage > 0, detail: `${scripted ? 'its script ran WebRTC' : 'its script did not run WebRTC'}; its own image was ${ownImage > 0 ? 'fetched' : 'never fetched'}` })
    } catch (error) {
      checks.push({ name: 'the page ran', ok: false, detail: WebError.is(error) ? `${error.code}: ${error.message}` : String(error) })
    }
    checks.push({ name: 'no TCP to an untrusted loopback address', ok: internal.counter.connections === 0, detail: `${internal.counter.connections} connection(s) reached ${target}` })
    checks.push({ name: 'no UDP (WebRTC STUN)', ok: packets === 0, detail: `${packets} packet(s) reached 127.0.0.1:${stunPort}` })
    const recorded = refused.filter((entry) => entry.includes(target)).length
    checks.push({ name: 'refusals recorded', ok: recorded > 0, detail: `${recorded} refusal(s) of ${target} in the provenance` })
    const status = fetcher.status()
    return { contained: checks.every((check) => check.ok), ...(status.version ? { version: status.version } : {}), sandbox: status.sandbox, checks }
  } finally {
    await fetcher.close()
    await Promise.all([internal.close(), page.close(), new Promise<void>((resolve) => udp.close(() => resolve()))])
  }
}
