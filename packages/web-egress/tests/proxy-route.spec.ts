// chooseRoute (dsh-web) against undici's own EnvHttpProxyAgent over a table
// of environments and URLs: each of the four proxy variables points at its
// own recording proxy on loopback, direct connections fail at once without
// leaving the machine, and for every pair the proxy undici went to (or none)
// must be the one chooseRoute names.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { EnvHttpProxyAgent, request } from 'undici'
import { chooseRoute, readProxySettings } from 'dsh-host'

const VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'] as const
const ALL = [...VARIABLES, 'no_proxy', 'NO_PROXY']

interface Recorder {
  origin: string
  seen: string[]
  close(): Promise<void>
}

async function recordingProxy(): Promise<Recorder> {
  const seen: string[] = []
  const server = createServer((incoming, response) => {
    seen.push(`${incoming.method} ${incoming.url}`)
    response.writeHead(502).end()
  })
  server.on('connect', (incoming, socket: Socket) => {
    seen.push(`CONNECT ${incoming.url}`)
    socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { origin, seen, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

describe('chooseRoute takes the route undici\'s EnvHttpProxyAgent takes', () => {
  const proxies: Record<string, Recorder> = {}
  before(async () => {
    for (const name of VARIABLES) proxies[name] = await recordingProxy()
  })
  after(async () => {
    await Promise.all(Object.values(proxies).map((proxy) => proxy.close()))
  })

  const environments: Record<string, string>[] = [
    {},
    { HTTP_PROXY: 'HTTP_PROXY' },
    { http_proxy: 'http_proxy', HTTP_PROXY: 'HTTP_PROXY' },
    { http_proxy: '', HTTP_PROXY: 'HTTP_PROXY' },
    { HTTPS_PROXY: 'HTTPS_PROXY', HTTP_PROXY: 'HTTP_PROXY' },
    { https_proxy: 'https_proxy', HTTPS_PROXY: 'HTTPS_PROXY', http_proxy: 'http_proxy' },
    { https_proxy: '', HTTP_PROXY: 'HTTP_PROXY' },
    { HTTP_PROXY: 'HTTP_PROXY', NO_PROXY: '*' },
    { HTTP_PROXY: 'HTTP_PROXY', HTTPS_PROXY: 'HTTPS_PROXY', NO_PROXY: 'example.com, .internal.test,*.wild.test:8443 [::1]' },
    { HTTP_PROXY: 'HTTP_PROXY', no_proxy: 'a.test', NO_PROXY: 'b.test' },
    { HTTP_PROXY: 'HTTP_PROXY', no_proxy: '', NO_PROXY: 'b.test' },
    { HTTP_PROXY: 'HTTP_PROXY', NO_PROXY: 'localhost:8080,127.0.0.1,*,EXAMPLE.com:80' },
  ]
  const urls = [
    'http://example.com/',
    'https://example.com/',
    'http://www.example.com:8080/',
    'http://notexample.com/',
    'https://x.internal.test/',
    'https://internal.test/',
    'https://a.wild.test:8443/',
    'https://a.wild.test/',
    'http://[::1]:8080/',
    'http://localhost:8080/',
    'http://localhost/',
    'http://127.0.0.1/',
    'http://a.test/',
    'http://b.test/',
    'http://example.com:80/',
    'https://example.com:443/',
  ]

  it(`agrees on ${environments.length} environments × ${urls.length} URLs`, async () => {
    const saved = Object.fromEntries(ALL.map((name) => [name, process.env[name]]))
    const disagreements: string[] = []
    const taken = new Set<string>()
    try {
      for (const table of environments) {
        for (const name of ALL) delete process.env[name]
        // Each proxy variable's value names itself; it becomes that variable's recording proxy.
        const env: Record<string, string> = {}
        for (const [name, value] of Object.entries(table)) env[name] = (VARIABLES as readonly string[]).includes(name) && value ? proxies[value]!.origin : value
        Object.assign(process.env, env)
        const agent = new EnvHttpProxyAgent({
          connect: (_options: unknown, callback: (error: Error | null, socket: null) => void) => callback(new Error('direct'), null),
        } as ConstructorParameters<typeof EnvHttpProxyAgent>[0])
        try {
          for (const url of urls) {
            for (const proxy of Object.values(proxies)) proxy.seen.length = 0
            await request(url, { dispatcher: agent }).then(
              (response) => response.body.dump(),
              () => {},
            )
            const took = Object.entries(proxies).filter(([, proxy]) => proxy.seen.length > 0).map(([name]) => name)
            const undici = took.length ? took.join('+') : 'direct'
            const route = chooseRoute(new URL(url), readProxySettings(env))
            const ours = route.kind === 'direct' ? 'direct' : Object.entries(proxies).find(([, proxy]) => proxy.origin === route.origin)![0]
            taken.add(undici)
            if (undici !== ours) disagreements.push(`${JSON.stringify(table)} ${url}: undici ${undici}, chooseRoute ${ours}`)
          }
        } finally {
          await agent.close()
        }
      }
    } finally {
      for (const name of ALL) {
        if (saved[name] === undefined) delete process.env[name]
        else process.env[name] = saved[name]
      }
    }
    assert.deepEqual(disagreements, [])
    assert.deepEqual([...taken].sort(), ['HTTPS_PROXY', 'HTTP_PROXY', 'direct', 'http_proxy', 'https_proxy'], 'the table reaches every route')
  })

  it('lets a row\'s proxy section override the environment, and names the setting', () => {
    const env = { HTTPS_PROXY: 'http://env-proxy.test:3128', NO_PROXY: 'example.com' }
    const fromRow = readProxySettings(env, { url: 'http://user:pw@row-proxy.test:8080', noProxy: ['other.test'] })
    const route = chooseRoute(new URL('https://example.com/'), fromRow)
    assert.equal(route.kind, 'proxy')
    assert.ok(route.kind === 'proxy' && route.origin === 'http://row-proxy.test:8080' && route.setting === 'proxy.url')
    assert.equal(chooseRoute(new URL('https://other.test/'), fromRow).kind, 'direct')
    const fromEnv = chooseRoute(new URL('https://www.example.org/'), readProxySettings(env))
    assert.ok(fromEnv.kind === 'proxy' && fromEnv.setting === 'HTTPS_PROXY')
    assert.throws(() => chooseRoute(new URL('https://a.test/'), readProxySettings({ HTTPS_PROXY: 'user:secret@proxy.test:3128' })), (error: Error) => {
      assert.match(error.message, /HTTPS_PROXY is not an http or https proxy URL/)
      assert.doesNotMatch(error.message, /secret/)
      return true
    })
  })

  it('refuses a SOCKS proxy URL as a setting error naming the setting, rather than sending anything elsewhere', () => {
    for (const url of ['socks5://127.0.0.1:1080', 'socks5h://user:secret@127.0.0.1:1080', 'socks://127.0.0.1:1080']) {
      assert.throws(() => chooseRoute(new URL('https://a.test/'), readProxySettings({}, { url })), (error: Error) => {
        assert.match(error.message, /proxy\.url is not an http or https proxy URL; write it as http:\/\/HOST:PORT/)
        assert.doesNotMatch(error.message, /secret/)
        return true
      })
    }
  })
})
