// The real parts together: the dsh-harness/network row in allowlist mode, the
// dsh-tool-web web_fetch tool and the dsh-web-fetch-http fetcher, against one
// loopback server that answers for a.test, b.test and c.test (the fetcher's
// `resolve` points them at 127.0.0.1). The policy's check sees only the first
// URL; the fetcher must hold every redirect hop to the policy's list.
import assert from 'node:assert/strict'
import { type IncomingMessage, type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as network from 'dsh-harness/network'
import * as tools from 'dsh-harness/tools'
import * as toolWeb from 'dsh-tool-web'
import * as web from 'dsh-web'
import * as fetchHttp from 'dsh-web-fetch-http'

describe('allowlist policy, web_fetch and the HTTP fetcher hold every redirect hop to one list', () => {
  let server: Server
  let port: number
  /** Requests received, as "host path" with the Host header's name. */
  const received: string[] = []
  let ctx: Context
  const contexts: Context[] = []

  const hostOf = (request: IncomingMessage) => (request.headers.host ?? '').replace(/:\d+$/, '')

  before(async () => {
    server = createServer((request, response) => {
      const host = hostOf(request)
      received.push(`${host} ${request.url}`)
      if (host === 'a.test' && request.url === '/start') {
        response.writeHead(302, { location: `http://b.test:${port}/middle` }).end()
      } else if (host === 'b.test' && request.url === '/middle') {
        response.writeHead(302, { location: `http://c.test:${port}/secret` }).end()
      } else if (host === 'b.test' && request.url === '/page') {
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Page on b.test.')
      } else if (host === 'a.test' && request.url === '/to-b') {
        response.writeHead(301, { location: `http://b.test:${port}/page` }).end()
      } else if (host === 'a.test' && request.url === '/to-www') {
        response.writeHead(302, { location: `http://www.b.test:${port}/hop` }).end()
      } else if (host === 'www.b.test' && request.url === '/hop') {
        response.writeHead(302, { location: `http://b.test:${port}/apex` }).end()
      } else {
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`The ${host} page that must not be read.`)
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port

    ctx = await mount(['a.test', 'b.test'])
  })

  /** The real rows: tools, the network policy in allowlist mode, the seam, the HTTP fetcher and web_fetch. */
  async function mount(domains: string[]): Promise<Context> {
    const ctx = new Context()
    ctx.plugin(tools, { mode: 'native' })
    ctx.plugin(network, { mode: 'allowlist', domains })
    ctx.plugin(web, { searchProvider: 'none', fetchProvider: 'http' })
    ctx.plugin(fetchHttp, {
      resolve: { 'a.test': '127.0.0.1', 'b.test': '127.0.0.1', 'www.b.test': '127.0.0.1', 'c.test': '127.0.0.1' },
      // privateHosts trusts exactly what it names: the names, since a name that
      // resolves to a trusted address is not trusted. c.test is trusted too, so
      // that only the domain list can stop the hop to it.
      privateHosts: ['127.0.0.1', 'a.test', 'b.test', 'www.b.test', 'c.test'],
      // The direct route, whatever proxy the machine's environment names.
      proxy: { noProxy: ['*'] },
    })
    ctx.plugin(toolWeb, { search: false, fetch: true })
    await ctx.start()
    await ctx.lifecycle.flush()
    contexts.push(ctx)
    return ctx
  }

  beforeEach(() => {
    received.length = 0
  })

  after(async () => {
    for (const item of contexts) await item.stop()
    await new Promise((resolve) => server?.close(resolve))
  })

  it('follows a hop that stays on the list', async () => {
    const outcome = await ctx.tools.invoke('web_fetch', { url: `http://a.test:${port}/to-b`, format: 'text' })
    assert.equal(outcome.isError, false, outcome.content)
    assert.match(outcome.content, /Page on b\.test\./)
    assert.deepEqual(received, ['a.test /to-b', 'b.test /page'])
  })

  it('refuses the hop to c.test, naming it and the policy\'s list, and never requests c.test', async () => {
    const outcome = await ctx.tools.invoke('web_fetch', { url: `http://a.test:${port}/start` })
    assert.equal(outcome.error?.code, 'WEB_BLOCKED_URL', outcome.content)
    assert.match(outcome.error!.message, /^A redirect from http:\/\/b\.test:\d+\/middle was refused: /)
    assert.match(outcome.error!.message, /The host c\.test matches no entry of this request's allowed domain list \(a\.test, b\.test\)\./)
    assert.doesNotMatch(outcome.content, /must not be read/)
    assert.deepEqual(received, ['a.test /start', 'b.test /middle'])
  })

  it('the policy itself refuses a first URL off its list before the fetcher is asked', async () => {
    const outcome = await ctx.tools.invoke('web_fetch', { url: `http://c.test:${port}/secret` })
    assert.equal(outcome.error?.code, 'TOOL_REFUSED', outcome.content)
    assert.match(outcome.content, /c\.test is not on this network policy's allowlist \(a\.test, b\.test\)/)
    assert.deepEqual(received, [])
  })

  it('holds the hops to *.b.test as subdomains only, as the policy reads it: www.b.test is followed, b.test is not', async () => {
    const wildcard = await mount(['a.test', '*.b.test'])
    const outcome = await wildcard.tools.invoke('web_fetch', { url: `http://a.test:${port}/to-www` })
    assert.equal(outcome.error?.code, 'WEB_BLOCKED_URL', outcome.content)
    assert.match(outcome.error!.message, /^A redirect from http:\/\/www\.b\.test:\d+\/hop was refused: The host b\.test matches no entry of this request's allowed domain list \(a\.test, \*\.b\.test\)\./)
    assert.deepEqual(received, ['a.test /to-www', 'www.b.test /hop'])
  })
})
