// The vetting proxy on its own, spoken to as the browser speaks to it: it
// takes only its page's credentials (any process of the machine could
// connect to its port), and runs the address policy on what it forwards.
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { readProxySettings } from 'dsh-host'
import { AddressPolicy, PinnedAgents } from 'dsh-web-egress'
import { VettingProxy } from '../src/vetting-proxy.js'
import { DIRECT, listen, type Listener } from './helpers.js'

function proxied(proxy: VettingProxy, target: string, authorization?: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(proxy.url)
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, method: 'GET', path: target, headers: authorization ? { 'proxy-authorization': authorization } : {} }, (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    sent.on('error', reject).end()
  })
}

function tunnel(proxy: VettingProxy, authority: string): Promise<string> {
  const { port } = new URL(proxy.url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`))
    let answer = ''
    socket.setEncoding('utf8').on('data', (chunk) => {
      answer += chunk
      if (answer.includes('\r\n\r\n')) {
        socket.destroy()
        resolve(answer.split('\r\n')[0]!)
      }
    })
    socket.on('error', reject)
  })
}

describe('the vetting proxy', () => {
  let site: Listener
  let proxy: VettingProxy
  const agents = new PinnedAgents()

  before(async () => {
    site = await listen('127.0.0.1', (_request, response) => response.end('the trusted site'))
    proxy = await VettingProxy.start({
      policy: new AddressPolicy({ privateHosts: ['127.0.0.1'] }),
      proxy: readProxySettings(DIRECT),
      resolveLocally: true,
      tunnelHttp: true,
      agents,
      timeoutMs: 5000,
      maxRequests: 10,
      maxBytes: 1 << 20,
    })
  })
  after(async () => {
    await proxy?.close()
    await agents.destroy()
    await site?.close()
  })

  const authorization = () => `Basic ${Buffer.from(`${proxy.credentials.username}:${proxy.credentials.password}`).toString('base64')}`

  it('another process without the page\'s credentials gets 407 for a request and a tunnel, and the trusted site sees nothing', async () => {
    assert.equal((await proxied(proxy, `${site.origin}/`)).status, 407)
    assert.equal((await proxied(proxy, `${site.origin}/`, 'Basic ZHNoOndyb25n')).status, 407)
    assert.match(await tunnel(proxy, `127.0.0.1:${site.port}`), /^HTTP\/1\.1 407/)
    assert.equal(site.connections, 0)
    assert.equal(proxy.requests, 0, 'a 407 counts against no bound')
  })

  it('with them, a request to the trusted site is forwarded, and one to an untrusted address refused with its reason', async () => {
    const ok = await proxied(proxy, `${site.origin}/page`, authorization())
    assert.deepEqual(ok, { status: 200, body: 'the trusted site' })
    const refused = await proxied(proxy, 'http://127.0.0.2:9/secret', authorization())
    assert.equal(refused.status, 403)
    assert.match(refused.body, /127\.0\.0\.2.*not public/)
    assert.equal(proxy.refused.first.at(-1)?.code, 'WEB_BLOCKED_ADDRESS')
  })
})
