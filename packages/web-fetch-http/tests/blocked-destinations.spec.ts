import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, fakeLookup, signal, startServer, refusal, DIRECT } from './helpers.js'


describe('blocked destinations on loopback', () => {
  let server: TestServer
  const hosts: string[] = []
  before(async () => {
    server = await startServer((request, response) => {
      hosts.push(String(request.headers.host))
      if (request.url === '/leak-literal') {
        response.writeHead(302, { location: `http://127.0.0.1:${server.port}/secret` })
        return response.end()
      }
      if (request.url === '/leak-name') {
        response.writeHead(302, { location: `http://alias.test:${server.port}/secret` })
        return response.end()
      }
      if (request.url === '/hop') {
        response.writeHead(301, { location: `http://www.trusted.test:${server.port}/final` })
        return response.end()
      }
      response.setHeader('content-type', 'text/plain')
      response.end(`you reached ${request.url}`)
    })
  })
  after(() => server.close())

  const lookup = fakeLookup({ 'trusted.test': ['127.0.0.1'], 'www.trusted.test': ['127.0.0.1'], 'alias.test': ['127.0.0.1'] })

  it('refuses loopback by default, before any connection', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup })
    const error = await refusal(fetcher.fetch({ url: `${server.origin}/default` }, { signal: signal() }))
    assert.equal(error.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(error.details.range, '127.0.0.0/8')
    const named = await refusal(fetcher.fetch({ url: `http://trusted.test:${server.port}/by-name` }, { signal: signal() }))
    assert.equal(named.code, 'WEB_BLOCKED_ADDRESS')
    assert.ok(!server.hits.includes('/default') && !server.hits.includes('/by-name'))
    await fetcher.close()
  })

  it('allows a trusted name, keeps its Host header, and lists the redirect chain', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup, privateHosts: ['trusted.test', 'www.trusted.test'] })
    const document = await fetcher.fetch({ url: `http://trusted.test:${server.port}/hop`, format: 'text' }, { signal: signal() })
    assert.equal(document.text, 'you reached /final')
    assert.equal(document.url, `http://www.trusted.test:${server.port}/final`)
    assert.deepEqual(document.provenance.redirects, [
      { url: `http://trusted.test:${server.port}/hop`, status: 301, location: `http://www.trusted.test:${server.port}/final`, route: 'direct', checks: ['trusted', 'pinned'] },
    ])
    assert.equal(document.provenance.address, '127.0.0.1')
    assert.ok(hosts.includes(`trusted.test:${server.port}`) && hosts.includes(`www.trusted.test:${server.port}`))
    await fetcher.close()
  })

  it('does not let trust leak through a redirect to the same address, by literal or by another name', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup, privateHosts: ['trusted.test'] })
    const literal = await refusal(fetcher.fetch({ url: `http://trusted.test:${server.port}/leak-literal` }, { signal: signal() }))
    assert.equal(literal.code, 'WEB_BLOCKED_ADDRESS')
    const alias = await refusal(fetcher.fetch({ url: `http://trusted.test:${server.port}/leak-name` }, { signal: signal() }))
    assert.equal(alias.code, 'WEB_BLOCKED_ADDRESS')
    assert.match(alias.message, /alias\.test/)
    assert.ok(!server.hits.includes('/secret'), 'the redirect target was never requested')
    await fetcher.close()
  })

  it('fetches a trusted IPv6 literal through the pinned dispatcher', async (t) => {
    const { createServer } = await import('node:http')
    const v6 = createServer((_request, response) => response.end('over IPv6'))
    await new Promise<void>((resolve, reject) => v6.once('error', reject).listen(0, '::1', resolve))
    t.after(() => new Promise<void>((resolve) => v6.close(() => resolve())))
    const port = (v6.address() as { port: number }).port
    const fetcher = createHttpFetcher({ env: DIRECT, privateHosts: ['::1'] })
    const document = await fetcher.fetch({ url: `http://[::1]:${port}/`, format: 'text' }, { signal: signal() })
    assert.equal(document.text, 'over IPv6')
    assert.equal(document.provenance.address, '::1')
    await fetcher.close()
  })

  it('resolve gives fixed answers that are still vetted unless privateHosts names the host', async () => {
    const pinnedOnly = createHttpFetcher({ env: DIRECT, resolve: { 'local.test': '127.0.0.1' } })
    const refused = await refusal(pinnedOnly.fetch({ url: `http://local.test:${server.port}/resolved` }, { signal: signal() }))
    assert.equal(refused.code, 'WEB_BLOCKED_ADDRESS')
    assert.deepEqual((await pinnedOnly.vet('http://LOCAL.test./x').catch((error) => error)).details.address, '127.0.0.1')
    await pinnedOnly.close()
    const trusted = createHttpFetcher({ env: DIRECT, resolve: { 'local.test': '127.0.0.1' }, privateHosts: ['local.test'] })
    const document = await trusted.fetch({ url: `http://local.test:${server.port}/resolved`, format: 'text' }, { signal: signal() })
    assert.equal(document.text, 'you reached /resolved')
    assert.ok(hosts.includes(`local.test:${server.port}`))
    await trusted.close()
    assert.throws(() => createHttpFetcher({ env: DIRECT, resolve: { 'bad.test': 'not-an-ip' } }), (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT')
  })

  it('trusts a literal address only when it is named', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup, privateHosts: ['127.0.0.1'] })
    const document = await fetcher.fetch({ url: `${server.origin}/literal`, format: 'text' }, { signal: signal() })
    assert.equal(document.text, 'you reached /literal')
    assert.equal((await refusal(fetcher.fetch({ url: `http://alias.test:${server.port}/x` }, { signal: signal() }))).code, 'WEB_BLOCKED_ADDRESS')
    await fetcher.close()
  })
})

/**
 * The scenarios run in a network namespace of their own inside a user
 * namespace (`unshare -rn`: mapped to root there, an ordinary user outside),
 * so they need no real root; only a kernel or sandbox that forbids user
 * namespaces stops them, and then the suite says so.
 */
function namespaceSkipReason(): string | false {
  const probe = spawnSync('unshare', ['-rn', 'true'], { encoding: 'utf8', timeout: 10_000 })
  if (probe.status === 0) return false
  const why = probe.error?.message ?? (probe.stderr.trim() || `exit status ${probe.status}`)
  return `user namespaces are unavailable here (unshare -rn true: ${why}); these scenarios need a network namespace of their own`
}

describe('blocked destinations in a fresh network namespace', { skip: namespaceSkipReason() }, () => {
  it('refuses rebinding, mixed answers and redirects to metadata or private names; nothing reaches the sentinel', async () => {
    const script = fileURLToPath(new URL('./fixtures/netns-scenarios.ts', import.meta.url))
    const cwd = fileURLToPath(new URL('../../..', import.meta.url))
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        'unshare',
        ['-rn', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" --import tsx "${script}"`],
        { cwd, timeout: 50_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}\n${out}`)) : resolve(out)),
      )
    })
    const results = JSON.parse(stdout.trim().split('\n').at(-1)!)
    // Rebinding: the first answer is public and pinned; a second lookup (which
    // would answer loopback) never happens, so the connection fails off-host.
    assert.equal(results.rebindingLookups, 1)
    assert.equal(results.rebinding.code, 'WEB_FETCH_FAILED')
    assert.equal(results.mixed.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(results.mixed.range, '127.0.0.0/8')
    assert.equal(results.redirectToMetadata.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(results.redirectToMetadata.range, '169.254.0.0/16')
    assert.equal(results.redirectToPrivateName.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(results.redirectToPrivateName.range, '10.0.0.0/8')
    assert.equal(results.redirectToMapped.code, 'WEB_BLOCKED_ADDRESS')
    assert.equal(results.publicUnreachable.code, 'WEB_FETCH_FAILED')
    assert.deepEqual(results.sentinelHits, ['/to-metadata', '/to-private-name', '/to-mapped'])
  })
})
