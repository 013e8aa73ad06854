// dsh doctor: the real CLI in child processes, a temp $DSH_HOME, loopback only.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { dsh, type RunResult, tempHome } from './helpers.js'
import { KNOWN_PROVIDERS } from '../packages/harness/src/cli/doctor-providers.js'
import { satisfies } from '../packages/harness/src/cli/doctor-environment.js'
import { isNonPublicAddress, redactUrl } from '../packages/harness/src/cli/doctor-network.js'
import * as brave from 'dsh-web-search-brave'
import * as tavily from 'dsh-web-search-tavily'
import * as exa from 'dsh-web-search-exa'
import * as perplexity from 'dsh-web-search-perplexity'
import * as deepseek from 'dsh-web-search-deepseek'
import * as openai from 'dsh-web-search-openai'
import * as anthropic from 'dsh-web-search-anthropic'
import * as gemini from 'dsh-web-search-gemini'
import * as searxng from 'dsh-web-search-searxng'

/** The doctor's JSON document (exit 0 or 1 both print one). */
function report(result: RunResult): { checks: { id: string; status: string; message: string; fix?: string }[]; worst: string } {
  assert.ok(result.code === 0 || result.code === 1, `dsh doctor exited ${result.code}: ${result.stderr}`)
  const document = JSON.parse(result.stdout)
  assert.deepEqual(Object.keys(document).sort(), ['checks', 'worst'])
  for (const check of document.checks) {
    assert.equal(typeof check.id, 'string')
    assert.ok(['ok', 'warn', 'fail'].includes(check.status), check.status)
    assert.equal(typeof check.message, 'string')
    if (check.status !== 'ok') assert.equal(typeof check.fix, 'string', `${check.id} has no fix`)
  }
  assert.equal(document.worst, document.checks.some((check: any) => check.status === 'fail') ? 'fail' : document.checks.some((check: any) => check.status === 'warn') ? 'warn' : 'ok')
  assert.equal(result.code, document.worst === 'fail' ? 1 : 0)
  return document
}

function check(document: ReturnType<typeof report>, id: string) {
  const found = document.checks.find((item) => item.id === id)
  assert.ok(found, `no check ${id} in ${document.checks.map((item) => item.id).join(', ')}`)
  return found
}

/** A loopback server counting the requests it sees. */
async function countingServer(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`)
    response.end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

/** A stand-in for a SearXNG instance: its front page, and /search that answers JSON, or, with JSON off, 403 and HTML as SearXNG does for a format not in search.formats. */
async function searxngServer(options: { json: boolean }): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`)
    if (!request.url?.startsWith('/search')) {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end('<!doctype html><title>SearXNG</title>')
    } else if (options.json) {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ query: 'dsh doctor', results: [{ url: 'https://example.org/', title: 'Example', content: 'x', engine: 'test' }], answers: [], infoboxes: [], suggestions: [] }))
    } else {
      response.writeHead(403, { 'content-type': 'text/html' })
      response.end('<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

interface VendorServer {
  server: Server
  url: string
  requests: string[]
}

/**
 * A stand-in for the keyed vendors' free endpoints and Brave's search, on
 * loopback: the key `good` is taken, any other is refused with 401 in each
 * vendor's own envelope, quoting the key back as some gateways do (which
 * doctor must never show).
 */
async function vendorServer(good: string): Promise<VendorServer> {
  const requests: string[] = []
  const brave = JSON.parse(readFileSync(new URL('../packages/web-search-brave/tests/fixtures/brave-multi-result.json', import.meta.url), 'utf8')).body
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url?.split('?')[0]}`)
    const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1]
    const key = String(request.headers['x-api-key'] ?? request.headers['x-goog-api-key'] ?? request.headers['x-subscription-token'] ?? bearer ?? '')
    const path = request.url?.split('?')[0] ?? ''
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    if (path === '/' || path === '/anthropic' || path === '/res/v1') return answer(404, { error: { message: 'not here' } })
    if (key !== good) {
      if (request.headers['x-api-key'] && path.startsWith('/v1/')) return answer(401, { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${key}` } })
      return answer(401, { error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', code: 'invalid_api_key' } })
    }
    if (path.startsWith('/v1beta/models/')) return answer(200, { name: `models/${path.slice('/v1beta/models/'.length)}` })
    if (path === '/usage') return answer(200, { key: { usage: 12, limit: 1000 } })
    if (path.startsWith('/v1/models/')) return answer(200, { id: decodeURIComponent(path.slice('/v1/models/'.length)), type: 'model', object: 'model' })
    if (path === '/user/balance') return answer(200, { is_available: true, balance_infos: [{ currency: 'USD', total_balance: '5.00', granted_balance: '0.00', topped_up_balance: '5.00' }] })
    if (path === '/res/v1/web/search') return answer(200, brave)
    answer(404, { error: { message: `no ${path}` } })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('dsh doctor', () => {
  let home: string
  before(async () => {
    home = await tempHome()
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('fails on the shipped base without a key, naming the credential and the command that stores it', async () => {
    const result = await dsh(['doctor', '--json'], { home })
    const document = report(result)
    assert.equal(result.code, 1)
    assert.equal(document.worst, 'fail')
    const credential = check(document, 'credential.deepseek-official')
    assert.equal(credential.status, 'fail')
    assert.match(credential.message, /DEEPSEEK_API_KEY is missing/)
    assert.match(credential.fix!, /dsh credentials set DEEPSEEK_API_KEY/)
    assert.equal(check(document, 'composition').status, 'ok')
    assert.equal(check(document, 'web.searchProvider').status, 'ok')
    assert.equal(check(document, 'node').status, 'ok')
    assert.match(check(document, 'tools').message, /web_search/)
    // The human form: a line per check with its status first, the fix indented below.
    const human = await dsh(['doctor'], { home })
    assert.equal(human.code, 1)
    assert.match(human.stdout, /^fail credential\.deepseek-official: DEEPSEEK_API_KEY is missing.*\n {7}fix: dsh credentials set DEEPSEEK_API_KEY/m)
    assert.match(human.stdout, /^ok {3}composition: /m)
  })

  it('is all ok once the key is stored, saying where it comes from and never its value; with --offline it sends nothing to the vendor', async () => {
    const keyHome = await tempHome()
    try {
      assert.equal((await dsh(['credentials', 'set', 'DEEPSEEK_API_KEY'], { home: keyHome, input: 'sk-doctor-test-value\n' })).code, 0)
      // The default base URL is a vendor's: with --offline doctor must not touch it.
      const result = await dsh(['doctor', '--json', '--offline'], { home: keyHome, env: { DEEPSEEK_SEARCH_BASE_URL: undefined } })
      const document = report(result)
      assert.equal(result.code, 0, result.stdout)
      assert.equal(check(document, 'credential.deepseek-official').status, 'ok')
      assert.match(check(document, 'credential.deepseek-official').message, /DEEPSEEK_API_KEY from the credentials store/)
      assert.match(check(document, 'baseURL.deepseek-official').message, /https:\/\/api\.deepseek\.com\/anthropic from the default; not probed: public endpoint/)
      assert.ok(!document.checks.some((item) => item.id.startsWith('search.')), 'no provider check with --offline')
      assert.ok(!result.stdout.includes('sk-doctor-test-value') && !result.stderr.includes('sk-doctor-test-value'))
      const fromEnv = report(await dsh(['doctor', '--json', '--offline'], { home, env: { DEEPSEEK_API_KEY: 'sk-env-value', DEEPSEEK_SEARCH_BASE_URL: undefined } }))
      assert.match(check(fromEnv, 'credential.deepseek-official').message, /DEEPSEEK_API_KEY from the environment/)
      // --live makes a search and --offline sends nothing: both at once is the command line's mistake.
      assert.equal((await dsh(['doctor', '--live', '--offline'], { home: keyHome })).code, 2)
    } finally {
      await rm(keyHome, { recursive: true, force: true })
    }
  })

  describe('the selected search provider\'s free check, against a fake vendor on loopback', () => {
    const GOOD = 'sk-doctor-good-5d1e7a90c3b2'
    const BAD = 'sk-doctor-bad-8f2c4e61a7d0'
    let vendor: VendorServer
    before(async () => {
      vendor = await vendorServer(GOOD)
    })
    after(() => new Promise((resolve) => vendor.server.close(resolve)))

    for (const { overlay, id, keyVariable, baseVariable, path, base } of [
      { overlay: 'openai-search', id: 'openai-official', keyVariable: 'OPENAI_API_KEY', baseVariable: 'OPENAI_SEARCH_BASE_URL', path: '/v1/models/gpt-4.1-mini', base: '' },
      { overlay: 'anthropic-search', id: 'anthropic-official', keyVariable: 'ANTHROPIC_API_KEY', baseVariable: 'ANTHROPIC_SEARCH_BASE_URL', path: '/v1/models/claude-haiku-4-5', base: '' },
      { overlay: 'gemini-search', id: 'gemini-official', keyVariable: 'GEMINI_API_KEY', baseVariable: 'GEMINI_SEARCH_BASE_URL', path: '/v1beta/models/gemini-2.5-flash', base: '' },
      { overlay: 'tavily-search', id: 'tavily', keyVariable: 'TAVILY_API_KEY', baseVariable: 'TAVILY_SEARCH_BASE_URL', path: '/usage', base: '' },
      { overlay: undefined, id: 'deepseek-official', keyVariable: 'DEEPSEEK_API_KEY', baseVariable: 'DEEPSEEK_SEARCH_BASE_URL', path: '/user/balance', base: '/anthropic' },
    ]) {
      const args = ['doctor', '--json', ...(overlay ? ['--config', overlay] : [])]
      it(`${id}: ok with a good key, after one free GET ${path}`, async () => {
        vendor.requests.length = 0
        const result = await dsh(args, { home, env: { [keyVariable]: GOOD, [baseVariable]: `${vendor.url}${base}` } })
        const search = check(report(result), `search.${id}`)
        assert.equal(search.status, 'ok', search.message)
        assert.match(search.message, new RegExp(`^${id}: the key works .*\\(GET ${path}\\)$`))
        assert.equal(result.code, 0, result.stdout)
        assert.deepEqual(vendor.requests.filter((request) => request !== `GET ${base || '/'}`), [`GET ${path}`])
        assert.ok(!result.stdout.includes(GOOD) && !result.stderr.includes(GOOD))
      })

      it(`${id}: a bad key fails with the auth error naming ${keyVariable} and the fix, never a byte of the key`, async () => {
        const result = await dsh(args, { home, env: { [keyVariable]: BAD, [baseVariable]: `${vendor.url}${base}` } })
        assert.equal(result.code, 1)
        const search = check(report(result), `search.${id}`)
        assert.equal(search.status, 'fail')
        assert.match(search.message, new RegExp(`^${id}: a search fails: WEB_PROVIDER_AUTH_FAILED: .*refused the (API )?key \\(HTTP 401\\).*the key used: ${keyVariable} from the environment`))
        assert.match(search.fix!, /every web_search will fail this way/)
        const human = await dsh(args.filter((arg) => arg !== '--json'), { home, env: { [keyVariable]: BAD, [baseVariable]: `${vendor.url}${base}` } })
        assert.match(human.stdout, new RegExp(`^fail search\\.${id}: .*WEB_PROVIDER_AUTH_FAILED.*\\n {7}fix: every web_search will fail this way`, 'm'))
        for (const text of [result.stdout, result.stderr, human.stdout, human.stderr]) for (const part of [BAD, BAD.slice(-12)]) assert.ok(!text.includes(part), text)
      })
    }

    it('brave: says it has no free check and that --live makes one paid search; --live makes it and reports the outcome', async () => {
      const env = { BRAVE_API_KEY: GOOD, BRAVE_SEARCH_BASE_URL: `${vendor.url}/res/v1` }
      vendor.requests.length = 0
      const plain = report(await dsh(['doctor', '--json', '--config', 'brave-search'], { home, env }))
      assert.match(check(plain, 'search.brave').message, /^brave: not checked: its API has no request that costs nothing; `dsh doctor --live` makes one paid search$/)
      assert.ok(!vendor.requests.some((request) => request.startsWith('GET /res/v1/web/search')), 'no search without --live')
      const live = report(await dsh(['doctor', '--json', '--live', '--config', 'brave-search'], { home, env }))
      const line = check(live, 'live.brave')
      assert.equal(line.status, 'ok', line.message)
      assert.match(line.message, /^brave: a live search \(q=dsh doctor\) answered with \d+ sources?$/)
      assert.ok(!live.checks.some((item) => item.id === 'search.brave'))
      const failed = report(await dsh(['doctor', '--json', '--live', '--config', 'brave-search'], { home, env: { ...env, BRAVE_API_KEY: BAD } }))
      assert.equal(check(failed, 'live.brave').status, 'fail')
      assert.match(check(failed, 'live.brave').message, /a live search fails: WEB_PROVIDER_AUTH_FAILED/)
      assert.equal(failed.worst, 'fail')
    })
  })

  it('probes a SearXNG instance on loopback with one JSON search and says it is keyless', async () => {
    const { server, url, requests } = await searxngServer({ json: true })
    try {
      const document = report(await dsh(['doctor', '--json', '--config', 'searxng-search'], { home, env: { SEARXNG_BASE_URL: url } }))
      const base = check(document, 'baseURL.searxng')
      assert.equal(base.status, 'ok', base.message)
      assert.match(base.message, new RegExp(`${url} from the environment variable SEARXNG_BASE_URL is reachable \\(HTTP 200`))
      const search = check(document, 'search.searxng')
      assert.equal(search.status, 'ok', search.message)
      assert.equal(search.message, 'searxng: a JSON search (q=dsh doctor) answered with 1 result')
      assert.deepEqual(requests.map((request) => request.split('?')[0]), ['GET /', 'GET /search'])
      assert.match(requests[1]!, /[?&]q=dsh(\+|%20)doctor(&|$)/)
      assert.match(requests[1]!, /[?&]format=json(&|$)/)
      assert.equal(check(document, 'web.searchProvider').status, 'ok')
      assert.match(check(document, 'credential.searxng').message, /keyless/)
      // DeepSeek is mounted but not selected: its missing key is a warning, not a failure.
      assert.equal(check(document, 'credential.deepseek-official').status, 'warn')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('fails on a SearXNG instance with JSON turned off (its base URL answers, every search would fail), with the settings.yml fix', async () => {
    const { server, url } = await searxngServer({ json: false })
    try {
      const result = await dsh(['doctor', '--json', '--config', 'searxng-search'], { home, env: { SEARXNG_BASE_URL: url } })
      assert.equal(result.code, 1)
      const document = report(result)
      assert.equal(check(document, 'baseURL.searxng').status, 'ok', 'the base URL alone looks fine')
      const search = check(document, 'search.searxng')
      assert.equal(search.status, 'fail')
      assert.match(search.message, /^searxng: a search fails: WEB_PROVIDER_ERROR: SearXNG answered HTTP 403 to format=json .*enable `json` in `search\.formats` of the instance's settings\.yml/)
      assert.equal(document.worst, 'fail')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('fails on a SearXNG base URL nothing listens on, naming the connection error and the setting', async () => {
    const port = await closedPort()
    const document = report(await dsh(['doctor', '--json', '--config', 'config/overlays/searxng-search.cordis.yml'], { home, env: { SEARXNG_BASE_URL: `http://127.0.0.1:${port}` } }))
    const base = check(document, 'baseURL.searxng')
    assert.equal(base.status, 'fail')
    assert.match(base.message, /ECONNREFUSED/)
    assert.match(base.message, /SEARXNG_BASE_URL/)
    assert.match(base.fix!, /SEARXNG_BASE_URL/)
    assert.equal(document.worst, 'fail')
  })

  it('fails on the Brave overlay without BRAVE_API_KEY', async () => {
    const result = await dsh(['doctor', '--json', '--config', 'config/overlays/brave-search.cordis.yml'], { home })
    const credential = check(report(result), 'credential.brave')
    assert.equal(result.code, 1)
    assert.equal(credential.status, 'fail')
    assert.match(credential.message, /BRAVE_API_KEY is missing/)
    assert.match(credential.fix!, /dsh credentials set BRAVE_API_KEY/)
  })

  for (const [overlay, id, variable] of [['tavily-search', 'tavily', 'TAVILY_API_KEY'], ['exa-search', 'exa', 'EXA_API_KEY'], ['perplexity-search', 'perplexity', 'PERPLEXITY_API_KEY']] as const) {
    it(`fails on the ${overlay} overlay without ${variable}, naming the command that stores it`, async () => {
      const result = await dsh(['doctor', '--json', '--config', overlay], { home })
      const credential = check(report(result), `credential.${id}`)
      assert.equal(result.code, 1)
      assert.equal(credential.status, 'fail')
      assert.match(credential.message, new RegExp(`${variable} is missing`))
      assert.match(credential.fix!, new RegExp(`dsh credentials set ${variable}`))
    })
  }

  it('fails on a world-writable $DSH_HOME with the chmod fix', async () => {
    const open = await mkdtemp(join(home, 'open-'))
    await chmod(open, 0o777)
    const home_ = check(report(await dsh(['doctor', '--json'], { home: open })), 'home')
    assert.equal(home_.status, 'fail')
    assert.match(home_.message, /writable by group and others/)
    assert.equal(home_.fix, `chmod 700 ${open}`)
  })

  it('shows proxy variables with the password redacted', async () => {
    const result = await dsh(['doctor', '--json'], { home, env: { HTTPS_PROXY: 'http://u:secret@127.0.0.1:9', no_proxy: 'localhost' } })
    assert.match(check(report(result), 'proxy').message, /HTTPS_PROXY=http:\/\/u:\*\*\*@127\.0\.0\.1:9/)
    // Regression: a value without a scheme (user:pass@host:3128), in ALL_PROXY and in lower case was printed whole.
    const everyForm = {
      HTTPS_PROXY: 'u:secret1@127.0.0.1:9',
      https_proxy: 'HTTP://u:secret2@127.0.0.1:9',
      HTTP_PROXY: 'http://u:sec@ret3@127.0.0.1:9',
      http_proxy: '//u:secret4@127.0.0.1:9',
      ALL_PROXY: 'socks5://u:secret5@127.0.0.1:1080',
      all_proxy: 'u:secret6@127.0.0.1:1080',
    }
    for (const args of [['doctor', '--json'], ['doctor']]) {
      const run = await dsh(args, { home, env: everyForm })
      for (const text of [run.stdout, run.stderr]) assert.doesNotMatch(text, /secret|ret3/, text)
      if (args.includes('--json')) {
        const shown = check(report(run), 'proxy').message
        for (const name of Object.keys(everyForm)) assert.match(shown, new RegExp(`\\b${name}=\\S*(\\*\\*\\*|<credentials>)@127\\.0\\.0\\.1`), name)
      }
    }
    const human = await dsh(['doctor'], { home, env: { HTTPS_PROXY: 'http://u:secret@127.0.0.1:9' } })
    for (const text of [result.stdout, result.stderr, human.stdout, human.stderr]) assert.ok(!text.includes('secret'), text)
  })

  it('checks the renderer when the web row renders: Chromium, its version, its sandbox, and a loopback self-test of its egress', { skip: existsSync('/usr/bin/chromium') ? false : 'Debian chromium is not installed (scripts/test-prerequisites.mjs installs it)' }, async () => {
    const document = report(await dsh(['doctor', '--json', '--offline', '--preset', 'render'], { home }))
    const render = check(document, 'render.browser')
    assert.equal(render.status, 'ok', render.message)
    assert.match(render.message, /^Chrom\S+ at \/usr\/bin\/chromium, sandbox (on|off \(.+\)); the loopback self-test held \(the page ran, no TCP to an untrusted loopback address, no UDP/)
  })

  it('fails the renderer when its browser is not there, with the fix', async () => {
    const overlay = join(home, 'no-chromium.cordis.yml')
    await writeFile(overlay, `- id: web-fetch-browser\n  config:\n    executablePath: ${join(home, 'no-such-chromium')}\n`)
    const document = report(await dsh(['doctor', '--json', '--offline', '--preset', 'render', '--config', overlay], { home }))
    const render = check(document, 'render.browser')
    assert.equal(render.status, 'fail')
    assert.match(render.message, /No Chromium at .*no-such-chromium: apt-get install chromium, or set executablePath/)
    assert.match(render.fix!, /apt-get install chromium/)
  })

  it('fails naming a row whose plugin fails to start', async () => {
    const overlay = join(home, 'fails.cordis.yml')
    await writeFile(overlay, `- id: broken\n  name: dsh-test-plugins/fails-on-start\n`)
    const document = report(await dsh(['doctor', '--json', '--config', overlay], { home }))
    assert.equal(check(document, 'composition').status, 'fail')
    const row = check(document, 'row.broken')
    assert.equal(row.status, 'fail')
    assert.match(row.message, /row "broken" .* failed to start: this plugin always fails to start/)
  })

  it('compiles every tool input schema (tools compile them on first call): one that does not compile fails, naming the tool', async () => {
    const overlay = join(home, 'bad-schema.cordis.yml')
    await writeFile(overlay, `- id: bad-schema\n  name: dsh-test-plugins/bad-schema-tool\n`)
    const document = report(await dsh(['doctor', '--json', '--config', overlay], { home }))
    const schemas = check(document, 'tools.schemas')
    assert.equal(schemas.status, 'fail')
    assert.match(schemas.message, /Tool bad_schema: inputSchema is not a valid JSON Schema/)
    assert.doesNotMatch(schemas.message, /web_search|web_fetch/)
    const fine = report(await dsh(['doctor', '--json'], { home }))
    assert.equal(check(fine, 'tools.schemas').status, 'ok')
  })

  it('self-tests the fetch provider on loopback: refused by the address policy', async () => {
    const document = report(await dsh(['doctor', '--json', '--self-test-fetch'], { home }))
    const selfTest = check(document, 'self-test-fetch')
    assert.equal(selfTest.status, 'ok', selfTest.message)
    assert.match(selfTest.message, /\(WEB_BLOCKED_ADDRESS\); no request reached the server/)
    // Without the flag there is no self-test.
    assert.ok(!report(await dsh(['doctor', '--json'], { home })).checks.some((item) => item.id === 'self-test-fetch'))
  })
})

describe('dsh doctor helpers', () => {
  it('knows the base URL variables and defaults the provider packages export', () => {
    const exported: Record<string, [string, string | undefined]> = {
      'deepseek-official': [deepseek.DEEPSEEK_BASE_URL_ENV, deepseek.DEFAULT_DEEPSEEK_BASE_URL],
      'openai-official': [openai.OPENAI_BASE_URL_ENV, openai.DEFAULT_OPENAI_BASE_URL],
      brave: [brave.BRAVE_BASE_URL_ENV, brave.DEFAULT_BRAVE_BASE_URL],
      'anthropic-official': [anthropic.ANTHROPIC_BASE_URL_ENV, anthropic.DEFAULT_ANTHROPIC_BASE_URL],
      'gemini-official': [gemini.GEMINI_BASE_URL_ENV, gemini.DEFAULT_GEMINI_BASE_URL],
      searxng: [searxng.SEARXNG_BASE_URL_ENV, undefined],
      tavily: [tavily.TAVILY_BASE_URL_ENV, tavily.DEFAULT_TAVILY_BASE_URL],
      exa: [exa.EXA_BASE_URL_ENV, exa.DEFAULT_EXA_BASE_URL],
      perplexity: [perplexity.PERPLEXITY_BASE_URL_ENV, perplexity.DEFAULT_PERPLEXITY_BASE_URL],
    }
    for (const [id, [env, fallback]] of Object.entries(exported)) {
      const known = KNOWN_PROVIDERS.find((provider) => provider.id === id)
      assert.equal(known?.baseURLEnv, env, id)
      assert.equal(known?.defaultBaseURL, fallback, id)
    }
  })

  it('probes only loopback and private addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.1.1', '::1', 'fd00::1', '::ffff:127.0.0.1']) assert.ok(isNonPublicAddress(address), address)
    for (const address of ['8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:1.1.1.1', 'example.com']) assert.ok(!isNonPublicAddress(address), address)
  })

  it('redacts passwords in proxy URLs and reads engines ranges', () => {
    assert.equal(redactUrl('http://u:secret@127.0.0.1:9'), 'http://u:***@127.0.0.1:9')
    assert.equal(redactUrl('HTTP://u:secret@Proxy.Example:3128/'), 'http://u:***@proxy.example:3128/')
    assert.equal(redactUrl('http://127.0.0.1:3128'), 'http://127.0.0.1:3128')
    // Every other way a password can be written: none of them may reach the output.
    const odd: [string, string][] = [
      ['u:secret@127.0.0.1:3128', '<credentials>@127.0.0.1:3128'], // no scheme: the URL parser reads "u:" as the scheme
      ['u:secret@[::1]:3128', '<credentials>@[::1]:3128'],
      ['//u:secret@host:3128', '<credentials>@host:3128'],
      ['http://secret@host:3128', 'http://***@host:3128'], // a token as the user name
      ['http://u:sec@ret@host:3128', 'http://<credentials>@host:3128'], // an unencoded @ in the password
      ['http://u:sec/ret@host:3128', 'http://<credentials>@host:3128'], // an unencoded / in the password
      ['http://u:p%40secret@host', 'http://u:***@host'],
      [' http://u:secret@host', '<credentials>@host'],
      ['socks5://u:secret@host:1080', 'socks5://u:***@host:1080'],
      ['not a url://u:secret@host', '<credentials>@host'],
    ]
    for (const [value, shown] of odd) assert.equal(redactUrl(value), shown, value)
    assert.equal(satisfies('20.20.2', '>=20.6'), true)
    assert.equal(satisfies('20.5.1', '>=20.6'), false)
    assert.equal(satisfies('22.1.0', '^20.6.0 || >=22'), true)
    assert.equal(satisfies('21.0.0', '^20.6.0 || >=22'), false)
  })
})
