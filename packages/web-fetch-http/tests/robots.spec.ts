import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { decidingRule, parseRobots } from '../src/robots.js'
import { DIRECT, type TestServer, fakeLookup, refusal, signal, startServer } from './helpers.js'

describe('robots.txt rules (RFC 9309)', () => {
  const ROBOTS = [
    'User-agent: OtherBot',
    'Disallow: /',
    '',
    'User-agent: *',
    'Disallow: /private',
    'Allow: /private/open',
    'Disallow: /*.pdf$',
    'Disallow: /search?*q=',
    'Allow: /same',
    'Disallow: /same',
    'Disallow:',
  ].join('\n')
  const rules = parseRobots(ROBOTS)
  const cases: [path: string, allowed: boolean][] = [
    ['/', true],
    ['/private', false],
    ['/private/x', false],
    ['/private/open/page', true],
    ['/doc.pdf', false],
    ['/doc.pdf?x=1', true],
    ['/search?lang=en&q=x', false],
    ['/search?lang=en', true],
    ['/same', true],
    ['/robots.txt', true],
  ]
  for (const [path, allowed] of cases) {
    it(`${allowed ? 'allows' : 'disallows'} ${path} for dsh-web through the * group`, () => {
      assert.equal(rules.agent, '*')
      const rule = decidingRule(rules, path)
      assert.equal(!rule || rule.allow, allowed, rule?.line)
    })
  }

  it('uses the group that names dsh-web (any case), several user-agent lines to a group, instead of *', () => {
    const own = parseRobots('User-agent: *\nDisallow: /\n\nUser-agent: crawler-a\nUser-agent: DSH-Web\nDisallow: /drafts\n')
    assert.equal(own.agent, 'dsh-web')
    assert.equal(decidingRule(own, '/'), undefined)
    assert.equal(decidingRule(own, '/drafts/1')?.line, 'Disallow: /drafts')
    assert.deepEqual(parseRobots('User-agent: OtherBot\nDisallow: /\n'), { agent: undefined, rules: [] }, 'no group applies: everything is allowed')
  })
})

describe('respectRobots through the real fetcher on loopback', () => {
  let server: TestServer
  let robotsRequests = 0
  let robotsStatus = 200
  const fetcher = createHttpFetcher({ env: DIRECT, lookup: fakeLookup({ 'polite.test': ['127.0.0.1'] }), privateHosts: ['polite.test'], respectRobots: true, cacheTtlMs: 0 })
  const plain = createHttpFetcher({ env: DIRECT, lookup: fakeLookup({ 'polite.test': ['127.0.0.1'] }), privateHosts: ['polite.test'], cacheTtlMs: 0 })

  before(async () => {
    server = await startServer((request, response) => {
      if (request.url === '/robots.txt') {
        robotsRequests++
        response.writeHead(robotsStatus, { 'content-type': 'text/plain' })
        response.end('User-agent: *\nDisallow: /private\n')
        return
      }
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end(`<html><head><title>Page</title></head><body><article><p>The page at ${request.url} has its text here.</p></article></body></html>`)
    })
  })
  after(async () => {
    await Promise.all([fetcher.close(), plain.close()])
    await server.close()
  })

  const url = (path: string) => `http://polite.test:${server.port}${path}`

  it('fetches what robots.txt allows, refuses what it disallows with WEB_BLOCKED_URL naming the rule, and reads robots.txt once per origin', async () => {
    robotsRequests = 0
    const allowed = await fetcher.fetch({ url: url('/public'), format: 'text' }, { signal: signal() })
    assert.match(allowed.text, /The page at \/public/)
    const error = await refusal(fetcher.fetch({ url: url('/private/page') }, { signal: signal() }))
    assert.equal(error.code, 'WEB_BLOCKED_URL')
    assert.match(error.message, /robots\.txt disallows http:\/\/polite\.test:\d+\/private\/page for dsh-web \(the rule "Disallow: \/private" of its group for every crawler \(\*\)\), and respectRobots of the web-fetch-http row is on/)
    assert.equal(error.details.reason, 'robots')
    assert.equal(error.details.rule, 'Disallow: /private')
    assert.equal(robotsRequests, 1, 'kept per origin')
  })

  it('is off by default: no robots.txt is read and the disallowed page is fetched', async () => {
    robotsRequests = 0
    const page = await plain.fetch({ url: url('/private/page'), format: 'text' }, { signal: signal() })
    assert.match(page.text, /The page at \/private\/page/)
    assert.equal(robotsRequests, 0)
  })

  it('a robots.txt answering 404 allows everything; one answering 500 disallows everything, typed, retryable', async () => {
    robotsStatus = 404
    const missing = createHttpFetcher({ env: DIRECT, lookup: fakeLookup({ 'polite.test': ['127.0.0.1'] }), privateHosts: ['polite.test'], respectRobots: true, cacheTtlMs: 0 })
    const failing = createHttpFetcher({ env: DIRECT, lookup: fakeLookup({ 'polite.test': ['127.0.0.1'] }), privateHosts: ['polite.test'], respectRobots: true, cacheTtlMs: 0 })
    try {
      assert.match((await missing.fetch({ url: url('/private/page'), format: 'text' }, { signal: signal() })).text, /The page at/)
      robotsStatus = 500
      const error = await refusal(failing.fetch({ url: url('/public') }, { signal: signal() }))
      assert.equal(error.code, 'WEB_BLOCKED_URL')
      assert.equal(error.retryable, true)
      assert.match(error.message, /robots\.txt could not be read \(HTTP 500\), and robots\.txt that cannot be read disallows everything \(RFC 9309\)/)
    } finally {
      robotsStatus = 200
      await Promise.all([missing.close(), failing.close()])
    }
  })
})
