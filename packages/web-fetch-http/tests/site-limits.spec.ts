import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { registrableDomain } from '../src/site-limits.js'
import { startServer, type TestServer } from './helpers.js'

describe('registrable domain (the site a limit counts)', () => {
  const cases: [string, string][] = [
    ['www.example.com', 'example.com'],
    ['a.b.example.co.uk', 'example.co.uk'],
    ['alice.github.io', 'alice.github.io'],
    ['WWW.Example.ORG', 'example.org'],
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['localhost', 'localhost'],
  ]
  for (const [host, site] of cases) it(`${host} counts against ${site}`, async () => assert.equal(await registrableDomain(host), site))
})

describe('limitPerDomain of the fetcher', () => {
  let server: TestServer
  before(async () => {
    server = await startServer((request, response) => {
      if (request.url === '/hop') {
        response.writeHead(302, { location: '/page-after-hop' })
        return response.end()
      }
      response.setHeader('content-type', 'text/plain; charset=utf-8')
      response.end(`page ${request.url}`)
    })
  })
  after(() => server.close())

  it('counts every request to the site, a redirect hop included, and ends one over the limit with WEB_RATE_LIMITED before it reaches the server; a cache hit does not count', async () => {
    const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], limitPerDomain: { requests: 3, intervalSeconds: 60 } })
    try {
      server.hits.length = 0
      await fetcher.fetch({ url: `${server.origin}/hop` })
      await fetcher.fetch({ url: `${server.origin}/a` })
      const hit = await fetcher.fetch({ url: `${server.origin}/a` })
      assert.equal(hit.provenance.cacheHit, true)
      assert.deepEqual(server.hits, ['/hop', '/page-after-hop', '/a'])
      const error = await fetcher.fetch({ url: `${server.origin}/b` }).then(() => undefined, (error) => error)
      assert.ok(WebError.is(error), String(error))
      assert.equal(error.code, 'WEB_RATE_LIMITED')
      assert.match(error.message, /over the limit of the site 127\.0\.0\.1: 3 requests per 60 s \(limitPerDomain of the fetch row\)/)
      assert.ok(error.details.retryAfterMs! > 0)
      assert.deepEqual(server.hits, ['/hop', '/page-after-hop', '/a'], 'the refused request never reached the server')
    } finally {
      await fetcher.close()
    }
  })

  it('an override for the site replaces limitPerDomain, and names itself in the error', async () => {
    const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], limitPerDomain: { requests: 100, intervalSeconds: 60 }, limitPerDomainOverrides: { '127.0.0.1': { requests: 1, intervalSeconds: 60 } } })
    try {
      await fetcher.fetch({ url: `${server.origin}/c` })
      await assert.rejects(fetcher.fetch({ url: `${server.origin}/d` }), (error: unknown) => WebError.is(error) && /limitPerDomainOverrides\["127\.0\.0\.1"\] of the fetch row/.test(error.message))
    } finally {
      await fetcher.close()
    }
  })

  it('with concurrency 1, parallel fetches of one site reach it one at a time and all complete', async () => {
    let running = 0
    let most = 0
    const slow = await startServer((_request, response) => {
      running++
      most = Math.max(most, running)
      setTimeout(() => {
        running--
        response.setHeader('content-type', 'text/plain')
        response.end('slow page')
      }, 30)
    })
    const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], limitPerDomain: { concurrency: 1 } })
    try {
      const pages = await Promise.all([1, 2, 3, 4].map((page) => fetcher.fetch({ url: `${slow.origin}/${page}` })))
      assert.deepEqual(pages.map((page) => page.text), ['slow page', 'slow page', 'slow page', 'slow page'])
      assert.equal(most, 1)
    } finally {
      await fetcher.close()
      await slow.close()
    }
  })
})
