// `dsh search` through the real CLI, in a child process, with the shipped
// config/overlays/searxng-search.cordis.yml and SEARXNG_BASE_URL pointing at a loopback
// server that speaks SearXNG's JSON.
import assert from 'node:assert/strict'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { FixtureServer } from '../../../tests/support/fixture-server.js'
import { dsh, onlyJson, tempHome } from '../../../tests/helpers.js'
import { basicAuth, FIXTURES } from './helpers.js'

const OVERLAY = 'config/overlays/searxng-search.cordis.yml'

describe('searxng through dsh with config/overlays/searxng-search.cordis.yml', () => {
  let home: string
  let searx: FixtureServer
  let env: Record<string, string | undefined>
  before(async () => {
    home = await tempHome()
    searx = await FixtureServer.start(FIXTURES)
    env = { SEARXNG_BASE_URL: searx.url, SEARXNG_AUTH: undefined }
  })
  beforeEach(() => searx.reset())
  after(async () => {
    await searx.close()
    await rm(home, { recursive: true, force: true })
  })

  it('the overlay switches search to searxng and mounts its row, with nothing to fix', async () => {
    const dump = onlyJson(await dsh(['compose', '--json', '--config', OVERLAY], { home }))
    const rows = Object.fromEntries(dump.rows.map((row: any) => [row.id, row]))
    assert.equal(rows.web.config.searchProvider, 'searxng')
    assert.equal(rows['web-search-searxng'].status, 'mounted')
    assert.equal(rows['web-search-searxng'].config.authScheme, 'basic')
    assert.equal(rows['web-search-searxng'].config.baseURL, undefined, 'the instance is named by SEARXNG_BASE_URL, not the file')
    assert.deepEqual(dump.problems, [])
  })

  it('dsh search: two pages asked for maxResults 10, the exact query string, no credential, sources with engines, the request events in the session', async () => {
    searx.reply('searxng-multi-result', 'searxng-page-empty')
    const result = await dsh(['search', 'rust', 'async', 'runtime', '--config', OVERLAY, '--session', 'searx-cli', '--json'], { home, env })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.deepEqual(searx.requests.map((request) => request.path), [
      '/search?q=rust+async+runtime&format=json&pageno=1',
      '/search?q=rust+async+runtime&format=json&pageno=2',
    ])
    assert.equal(searx.requests[0]!.headers.authorization, undefined)
    assert.equal(searx.requests[0]!.headers.accept, 'application/json')
    assert.equal(outcome.structured.providerId, 'searxng')
    assert.deepEqual(outcome.structured.sources[0], {
      url: 'https://tokio.rs/',
      title: 'Tokio - An asynchronous Rust runtime',
      snippet: 'Tokio is an asynchronous runtime for the Rust programming language.',
      engines: ['duckduckgo', 'brave', 'startpage'],
      queries: [0],
    })
    assert.equal(outcome.structured.sources.length, 4)
    assert.match(outcome.content, /\[Tokio - An asynchronous Rust runtime\]\(https:\/\/tokio\.rs\/\)/)

    const shown = onlyJson(await dsh(['session', 'show', 'searx-cli', '--json'], { home }))
    assert.deepEqual(shown.events.map((event: any) => `${event.type}:${event.visibility}`), [
      'tool/call:surface',
      'web/searxng-search-request:log',
      'web/searxng-search-request:log',
      'tool/result:surface',
    ])
    assert.deepEqual(shown.events.slice(1, 3).map((event: any) => [event.data.endpoint, event.data.queryString, event.data.page, event.data.auth]), [
      [`${searx.url}/search`, 'q=rust+async+runtime&format=json&pageno=1', 1, 'none'],
      [`${searx.url}/search`, 'q=rust+async+runtime&format=json&pageno=2', 2, 'none'],
    ])
  })

  it("dsh search prints an infobox as the search engine's instant answer, never as model-written", async () => {
    searx.reply('searxng-infobox', 'searxng-page-empty')
    const result = await dsh(['search', 'tokio', 'rust', '--config', OVERLAY], { home, env })
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /Answer from the search engine's instant answer \(no model wrote it; not a source: check it against the sources\):/)
    assert.ok(!result.stdout.includes("written by the search provider's model"), result.stdout)
    assert.match(result.stdout, /Written in: Rust/)
  })

  it('behind a basic-auth proxy: the credential stored with dsh credentials set reaches the instance, and never the session log', async () => {
    const overlay = join(home, 'searxng-auth.cordis.yml')
    const { writeFile } = await import('node:fs/promises')
    await writeFile(overlay, '- id: web-search-searxng\n  config: { authEnv: SEARXNG_AUTH }\n')
    const stored = await dsh(['credentials', 'set', 'SEARXNG_AUTH'], { home, input: 'agent:cli-pass-0123456789\n' })
    assert.equal(stored.code, 0, stored.stderr)
    searx.reply('searxng-page-1')
    const result = await dsh(['search', 'paging', 'test', '--config', OVERLAY, '--config', overlay, '--session', 'searx-auth', '--json'], { home, env })
    assert.equal(onlyJson(result).isError, false)
    assert.equal(searx.requests[0]!.headers.authorization, basicAuth('agent:cli-pass-0123456789'))
    const log = await readFile(join(home, 'sessions', 'searx-auth', 'events.jsonl'), 'utf8')
    assert.ok(!log.includes('cli-pass-0123456789'))
    assert.ok(!log.includes(basicAuth('agent:cli-pass-0123456789').slice(6)))
  })

  it('dsh search against an instance with JSON disabled fails with the settings.yml fix', async () => {
    searx.reply('searxng-403-json-disabled')
    const result = await dsh(['search', 'anything', '--config', OVERLAY], { home, env })
    assert.equal(result.code, 1)
    // A tool error goes to stderr (issue 13); stdout stays empty.
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /^dsh: web_search failed: WEB_PROVIDER_ERROR: SearXNG answered HTTP 403 to format=json .*enable `json` in `search\.formats`/m)
  })

  it('with no instance named, the search says which setting to give', async () => {
    const result = await dsh(['search', 'anything', '--config', OVERLAY, '--json'], { home, env: { SEARXNG_BASE_URL: undefined } })
    const outcome = JSON.parse(result.stdout)
    assert.equal(result.code, 1)
    assert.equal(outcome.error.code, 'WEB_PROVIDER_UNAVAILABLE')
    assert.match(outcome.error.message, /"searxng" is registered but not available: no base URL is configured; set baseURL in the row or the environment variable SEARXNG_BASE_URL\./)
    assert.equal(searx.requests.length, 0)
  })
})
