// The proxy route against a real tinyproxy on 127.0.0.1, whose log says what
// reached it: requests go through it, NO_PROXY hosts and refused hosts never
// do, https is tunnelled with the certificate checked against the URL's
// name, a proxy that is down or refuses is WEB_PROXY_FAILED, and proxy
// credentials are sent but never shown. Targets are on loopback; `localhost`
// is the one name tinyproxy itself can resolve, trusted with privateHosts.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { type AddressInfo, type Socket, createServer as createNetServer } from 'node:net'
import { PROXY_TUNNEL_ATTEMPTS } from 'dsh-host'
import { after, before, describe, it } from 'node:test'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, type TlsTestServer, fakeLookup, refusal, signal, startServer, startTlsServer } from './helpers.js'
import { loadTestCertificates } from './tls-certificates.js'
import { type Tinyproxy, freePort, startTinyproxy, tinyproxyMissing } from '../../../tests/support/tinyproxy.js'

const localhostTls = {
  ca: readFileSync(new URL('./fixtures/tls-localhost/ca.pem', import.meta.url), 'utf8'),
  key: readFileSync(new URL('./fixtures/tls-localhost/localhost.key', import.meta.url), 'utf8'),
  cert: readFileSync(new URL('./fixtures/tls-localhost/localhost.pem', import.meta.url), 'utf8'),
}

describe('fetching through a real proxy (tinyproxy)', { skip: tinyproxyMissing }, () => {
  let proxy: Tinyproxy
  let page: TestServer
  let secure: TlsTestServer
  let impostor: TlsTestServer

  before(async () => {
    proxy = await startTinyproxy()
    page = await startServer((request, response) => {
      if (request.url === '/to-private') {
        response.writeHead(302, { location: `http://127.0.0.1:${page.port}/page` }).end()
        return
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`plain page ${request.url}`)
    })
    secure = await startTlsServer({ key: localhostTls.key, cert: localhostTls.cert }, (request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`secure page ${request.url}`)
    })
    // A certificate for another name (secure.test), from a CA the fetcher also trusts.
    impostor = await startTlsServer(loadTestCertificates().leaves['secure.test']!, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('impostor')
    })
  })
  after(async () => {
    await Promise.all([proxy?.stop(), page?.close(), secure?.close(), impostor?.close()])
  })

  const seen = (from: number) => proxy.requests().slice(from)

  it('sends an http target through the proxy (a CONNECT tunnel) and records the route', async () => {
    const fetcher = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, privateHosts: ['localhost'] })
    try {
      const before = proxy.requests().length
      const document = await fetcher.fetch({ url: `http://localhost:${page.port}/page`, format: 'text' }, { signal: signal() })
      assert.equal(document.text, 'plain page /page')
      assert.deepEqual(seen(before), [`CONNECT localhost:${page.port} HTTP/1.1`])
      assert.equal(document.provenance.route, 'proxy')
      assert.equal(document.provenance.proxy, proxy.origin)
      assert.deepEqual(document.provenance.checks, ['trusted'])
      assert.equal(document.provenance.address, undefined, 'the proxy picked the address; none is claimed')
    } finally {
      await fetcher.close()
    }
  })

  it('sends a NO_PROXY host direct: the proxy sees nothing', async () => {
    const fetcher = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin, NO_PROXY: 'example.com,localhost' }, privateHosts: ['localhost'], resolve: { localhost: '127.0.0.1' } })
    try {
      const before = proxy.requests().length
      const document = await fetcher.fetch({ url: `http://localhost:${page.port}/direct`, format: 'text' }, { signal: signal() })
      assert.equal(document.text, 'plain page /direct')
      assert.deepEqual(seen(before), [])
      assert.equal(document.provenance.route, 'direct')
      assert.deepEqual(document.provenance.checks, ['trusted', 'pinned'])
      assert.equal(document.provenance.address, '127.0.0.1')
    } finally {
      await fetcher.close()
    }
  })

  it('tunnels https and checks the certificate against the URL\'s name', async () => {
    const fetcher = createHttpFetcher({
      env: { HTTPS_PROXY: proxy.origin },
      privateHosts: ['localhost'],
      ca: [localhostTls.ca, loadTestCertificates().ca],
    })
    try {
      const before = proxy.requests().length
      const document = await fetcher.fetch({ url: `https://localhost:${secure.port}/landing`, format: 'text' }, { signal: signal() })
      assert.equal(document.text, 'secure page /landing')
      assert.deepEqual(seen(before), [`CONNECT localhost:${secure.port} HTTP/1.1`])
      assert.equal(secure.serverNames.at(-1), 'localhost')
      // A certificate for another name, through the same tunnel, is refused: not a proxy failure.
      const error = await refusal(fetcher.fetch({ url: `https://localhost:${impostor.port}/`, format: 'text' }, { signal: signal() }))
      assert.equal(error.code, 'WEB_FETCH_FAILED')
      assert.match(error.message, /ERR_TLS_CERT_ALTNAME_INVALID|localhost/)
      assert.deepEqual(impostor.hits, [])
    } finally {
      await fetcher.close()
    }
  })

  it('refuses a private literal, a local name and a redirect to a private address before the proxy sees them', async () => {
    const fetcher = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, privateHosts: ['localhost'] })
    try {
      const before = proxy.requests().length
      const literal = await refusal(fetcher.fetch({ url: `http://127.0.0.1:${page.port}/page` }, { signal: signal() }))
      assert.equal(literal.code, 'WEB_BLOCKED_ADDRESS')
      assert.match(literal.message, /Nothing was sent to the proxy/)
      for (const name of ['metadata.google.internal', 'printer.local', 'router.home.arpa', 'intranet', 'app.localhost']) {
        const local = await refusal(fetcher.fetch({ url: `http://${name}/` }, { signal: signal() }))
        assert.equal(local.code, 'WEB_BLOCKED_ADDRESS', name)
        assert.match(local.message, new RegExp(`${name.replace(/\./g, '\\.')} is .*privateHosts`))
      }
      assert.deepEqual(seen(before), [], 'nothing reached the proxy')
      const redirected = await refusal(fetcher.fetch({ url: `http://localhost:${page.port}/to-private` }, { signal: signal() }))
      assert.equal(redirected.code, 'WEB_BLOCKED_ADDRESS')
      // The refusal says it was a redirect's hop, and from where.
      assert.match(redirected.message, new RegExp(`^A redirect from http://localhost:${page.port}/to-private \\(HTTP 30\\d\\) was refused: The destination `))
      assert.equal(redirected.details.redirectedFrom, `http://localhost:${page.port}/to-private`)
      assert.deepEqual(seen(before), [`CONNECT localhost:${page.port} HTTP/1.1`], 'only the first hop reached the proxy')
    } finally {
      await fetcher.close()
    }
  })

  it('vets names locally: a private answer is refused, a fake-IP answer passes only with fakeIpRanges, never as a literal', async () => {
    const lookup = fakeLookup({ 'fake.example': ['198.18.0.5'], 'inside.example': ['10.1.2.3'] })
    const plain = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, lookup })
    const fake = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, lookup, proxy: { fakeIpRanges: ['198.18.0.0/15'] } })
    try {
      const before = proxy.requests().length
      const inside = await refusal(plain.fetch({ url: 'http://inside.example/' }, { signal: signal() }))
      assert.equal(inside.code, 'WEB_BLOCKED_ADDRESS')
      const refused = await refusal(plain.fetch({ url: 'http://fake.example/' }, { signal: signal() }))
      assert.equal(refused.code, 'WEB_BLOCKED_ADDRESS')
      assert.match(refused.message, /proxy\.fakeIpRanges/)
      const literal = await refusal(fake.fetch({ url: 'http://198.18.0.5/' }, { signal: signal() }))
      assert.equal(literal.code, 'WEB_BLOCKED_ADDRESS')
      assert.match(literal.message, /never an address written in the URL/)
      assert.deepEqual(seen(before), [])
      // Allowed for the name: it goes to the proxy, which cannot resolve it here and says so.
      const sent = await refusal(fake.fetch({ url: 'http://fake.example/' }, { signal: signal() }))
      assert.equal(sent.code, 'WEB_PROXY_FAILED')
      assert.equal(sent.details.status, 500)
      // A name that does not resolve locally at all still goes to the proxy.
      const unresolved = await refusal(plain.fetch({ url: 'http://nowhere.example/' }, { signal: signal() }))
      assert.equal(unresolved.code, 'WEB_PROXY_FAILED')
      assert.deepEqual(seen(before), ['CONNECT fake.example:80 HTTP/1.1', 'CONNECT nowhere.example:80 HTTP/1.1'])
    } finally {
      await Promise.all([plain.close(), fake.close()])
    }
  })
})

describe('a proxy that fails', () => {
  let refusing: { port: number; close(): Promise<void> }
  before(async () => {
    const server = createHttpServer((_request, response) => response.writeHead(403).end())
    server.on('connect', (_request, socket: Socket) => socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n'))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    refusing = { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) }
  })
  after(() => refusing?.close())

  it('is WEB_PROXY_FAILED with the status when it refuses the tunnel, naming the proxy and the setting', async () => {
    const fetcher = createHttpFetcher({ env: { https_proxy: `http://127.0.0.1:${refusing.port}` }, privateHosts: ['localhost'] })
    try {
      const error = await refusal(fetcher.fetch({ url: 'https://localhost:9/' }, { signal: signal() }))
      assert.equal(error.code, 'WEB_PROXY_FAILED')
      assert.equal(error.details.status, 403)
      assert.equal(error.details.proxy, `http://127.0.0.1:${refusing.port}`)
      assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${refusing.port} refused the tunnel with 403.*https_proxy`))
    } finally {
      await fetcher.close()
    }
  })

  it('is WEB_PROXY_FAILED after PROXY_TUNNEL_ATTEMPTS connections when it accepts and closes without answering, not a reconnect storm ending in WEB_TIMEOUT', async () => {
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
    try {
      for (const [url, tunnelHttp] of [['https://localhost:9/', true], ['http://localhost:9/', true], ['http://localhost:9/', false]] as const) {
        connections = 0
        const fetcher = createHttpFetcher({ env: { HTTPS_PROXY: origin.replace('//', '//user:hunter2@'), HTTP_PROXY: origin.replace('//', '//user:hunter2@') }, privateHosts: ['localhost'], proxy: { tunnelHttp } })
        try {
          const error = await refusal(fetcher.fetch({ url }, { signal: signal() }))
          const what = `${url} tunnelHttp ${tunnelHttp}`
          assert.equal(error.code, 'WEB_PROXY_FAILED', `${what}: ${error.message}`)
          assert.ok(connections >= 1 && connections <= PROXY_TUNNEL_ATTEMPTS, `${what}: ${connections} connections`)
          assert.equal(error.details.proxy, origin)
          assert.match(error.message, new RegExp(`^The proxy ${origin.replace(/\./g, '\\.')} closed the connection without answering the (CONNECT|request)`))
          assert.doesNotMatch(error.message, /hunter2|user:/)
        } finally {
          await fetcher.close()
        }
      }
    } finally {
      await new Promise((resolve) => closing.close(resolve))
    }
  })

  it('is WEB_PROXY_FAILED when it is down, naming the row setting', async () => {
    const port = await freePort()
    const fetcher = createHttpFetcher({ env: {}, proxy: { url: `http://127.0.0.1:${port}` }, privateHosts: ['localhost'] })
    try {
      const error = await refusal(fetcher.fetch({ url: 'http://localhost:9/' }, { signal: signal() }))
      assert.equal(error.code, 'WEB_PROXY_FAILED')
      assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port} could not be reached \\(ECONNREFUSED\\).*proxy\\.url`))
    } finally {
      await fetcher.close()
    }
  })
})

describe('proxy credentials (tinyproxy BasicAuth)', { skip: tinyproxyMissing }, () => {
  let proxy: Tinyproxy
  let page: TestServer
  before(async () => {
    proxy = await startTinyproxy({ basicAuth: ['dshuser', 's3cret-proxy-pass'] })
    page = await startServer((request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(`authed ${request.url}`))
  })
  after(async () => {
    await Promise.all([proxy?.stop(), page?.close()])
  })

  it('sends proxy.credential as Basic Proxy-Authorization, and never shows it', async () => {
    const names: string[] = []
    const fetcher = createHttpFetcher({
      env: { HTTP_PROXY: proxy.origin },
      privateHosts: ['localhost'],
      proxy: { credential: 'PROXY_AUTH' },
      resolveCredential: async (name) => {
        names.push(name)
        return 'dshuser:s3cret-proxy-pass'
      },
    })
    const without = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, privateHosts: ['localhost'] })
    try {
      const document = await fetcher.fetch({ url: `http://localhost:${page.port}/in`, format: 'text' }, { signal: signal() })
      assert.equal(document.text, 'authed /in')
      assert.deepEqual(names, ['PROXY_AUTH'])
      assert.doesNotMatch(JSON.stringify(document), /s3cret|dshuser/)
      const refused = await refusal(without.fetch({ url: `http://localhost:${page.port}/in` }, { signal: signal() }))
      assert.equal(refused.code, 'WEB_PROXY_FAILED')
      assert.equal(refused.details.status, 407)
      assert.match(refused.message, /proxy\.credential/)
    } finally {
      await Promise.all([fetcher.close(), without.close()])
    }
  })

  it('takes user:password from the proxy URL too, and never shows it in an error', async () => {
    const url = new URL(proxy.origin)
    url.username = 'dshuser'
    url.password = 'wrong-pass'
    const fetcher = createHttpFetcher({ env: { HTTP_PROXY: url.href }, privateHosts: ['localhost'] })
    try {
      const error = await refusal(fetcher.fetch({ url: `http://localhost:${page.port}/in` }, { signal: signal() }))
      assert.equal(error.code, 'WEB_PROXY_FAILED')
      assert.equal(error.details.status, 401, 'tinyproxy answers 401 to wrong credentials')
      assert.match(error.message, /refused the credentials/)
      assert.doesNotMatch(`${error.message} ${JSON.stringify(error.details)}`, /wrong-pass|dshuser/)
    } finally {
      await fetcher.close()
    }
  })
})

describe('a proxy that allows CONNECT to port 443 only, as Squid does by default (proxy.tunnelHttp)', { skip: tinyproxyMissing }, () => {
  let proxy: Tinyproxy
  let authed: Tinyproxy
  let page: TestServer
  before(async () => {
    proxy = await startTinyproxy({ connectPorts: [443] })
    authed = await startTinyproxy({ connectPorts: [443], basicAuth: ['dshuser', 's3cret-proxy-pass'] })
    // connection: close, so that tinyproxy, which relays until the server closes, ends the response at once.
    page = await startServer((request, response) => response.writeHead(200, { 'content-type': 'text/plain', connection: 'close' }).end(`forwarded ${request.url}`))
  })
  after(async () => {
    await Promise.all([proxy?.stop(), authed?.stop(), page?.close()])
  })

  it('refuses the tunnel to an http target: WEB_PROXY_FAILED names proxy.tunnelHttp', async () => {
    const fetcher = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, privateHosts: ['localhost'] })
    try {
      const error = await refusal(fetcher.fetch({ url: `http://localhost:${page.port}/page` }, { signal: signal() }))
      assert.equal(error.code, 'WEB_PROXY_FAILED')
      assert.equal(error.details.status, 403)
      assert.match(error.message, /proxy\.tunnelHttp: false/)
    } finally {
      await fetcher.close()
    }
  })

  it('with tunnelHttp: false sends the http target as an absolute-form request the proxy forwards, still vetted first', async () => {
    const fetcher = createHttpFetcher({ env: { HTTP_PROXY: proxy.origin }, privateHosts: ['localhost'], proxy: { tunnelHttp: false } })
    try {
      const before = proxy.requests().length
      const document = await fetcher.fetch({ url: `http://localhost:${page.port}/page?q=1`, format: 'text' }, { signal: signal() })
      assert.equal(document.text, 'forwarded /page?q=1')
      assert.deepEqual(proxy.requests().slice(before), [`GET http://localhost:${page.port}/page?q=1 HTTP/1.1`])
      assert.equal(document.provenance.route, 'proxy')
      assert.equal(document.provenance.proxy, proxy.origin)
      // The policy still holds before anything is sent: a private literal never reaches the proxy.
      const refused = await refusal(fetcher.fetch({ url: `http://127.0.0.1:${page.port}/page` }, { signal: signal() }))
      assert.equal(refused.code, 'WEB_BLOCKED_ADDRESS')
      assert.equal(proxy.requests().length, before + 1)
    } finally {
      await fetcher.close()
    }
  })

  it('with tunnelHttp: false, the proxy asking for credentials is WEB_PROXY_FAILED 407, not the page', async () => {
    const fetcher = createHttpFetcher({ env: { HTTP_PROXY: authed.origin }, privateHosts: ['localhost'], proxy: { tunnelHttp: false } })
    try {
      const error = await refusal(fetcher.fetch({ url: `http://localhost:${page.port}/page` }, { signal: signal() }))
      assert.equal(error.code, 'WEB_PROXY_FAILED')
      assert.equal(error.details.status, 407)
      assert.match(error.message, /proxy\.credential/)
    } finally {
      await fetcher.close()
    }
  })
})
