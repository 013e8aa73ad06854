// `dsh` itself, in a child process, with config/overlays/brave-search.cordis.yml as the
// overlay and BRAVE_SEARCH_BASE_URL pointing at the loopback fixture server.
import assert from 'node:assert/strict'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FixtureServer } from '../../../tests/support/fixture-server.js'
import { dsh, onlyJson, tempHome } from '../../../tests/helpers.js'
import { FIXED_PARAMS, FIXTURES } from './helpers.js'

const OVERLAY = ['--config', 'brave-search']
const KEY = 'BSA-cli-stored-key-4f1c9e7a2b'

describe('brave through the dsh CLI and config/overlays/brave-search.cordis.yml', () => {
  let home: string
  let brave: FixtureServer
  let env: Record<string, string>
  before(async () => {
    home = await tempHome()
    brave = await FixtureServer.start(FIXTURES)
    env = { BRAVE_SEARCH_BASE_URL: `${brave.url}/res/v1` }
  })
  after(async () => {
    await brave.close()
    await rm(home, { recursive: true, force: true })
  })

  it('the overlay switches search to brave and mounts its row, with no problems', async () => {
    const dump = onlyJson(await dsh(['compose', '--json', ...OVERLAY], { home }))
    const rows = Object.fromEntries(dump.rows.map((row: any) => [row.id, row]))
    assert.equal(rows.web.config.searchProvider, 'brave')
    assert.equal(rows['web-search-brave'].status, 'mounted')
    assert.equal(rows['web-search-brave'].config.apiKeyEnv, 'BRAVE_API_KEY')
    assert.deepEqual(dump.problems, [])
  })

  it('without a key: WEB_PROVIDER_CREDENTIAL_MISSING naming `dsh credentials set BRAVE_API_KEY`, nothing sent', async () => {
    brave.reset()
    const result = await dsh(['search', 'rust', 'async', '--json', ...OVERLAY], { home, env })
    assert.equal(result.code, 1)
    assert.match(result.stdout + result.stderr, /WEB_PROVIDER_CREDENTIAL_MISSING/)
    assert.match(result.stdout + result.stderr, /dsh credentials set BRAVE_API_KEY/)
    assert.equal(brave.requests.length, 0)
  })

  it('dsh search: the stored key in X-Subscription-Token, the exact query string, mapped sources, the request event logged without the key', async () => {
    const stored = await dsh(['credentials', 'set', 'BRAVE_API_KEY'], { home, input: `${KEY}\n` })
    assert.equal(stored.code, 0, stored.stderr)
    brave.reset()
    brave.reply('brave-multi-result')
    const result = await dsh(['search', 'rust', 'async', 'runtime', '--json', '--session', 'brave-cli', ...OVERLAY], { home, env })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.equal(outcome.structured.providerId, 'brave')
    assert.deepEqual(outcome.structured.sources.map((source: any) => [source.url, source.kind]), [
      ['https://tokio.rs/', 'web'],
      ['https://docs.rs/tokio/latest/tokio/', 'web'],
      ['https://news.example.com/tokio-1-44', 'news'],
      ['https://www.reddit.com/r/rust/comments/abc123/tokio_vs_asyncstd/', 'discussion'],
    ])
    assert.equal(outcome.structured.sources[0].extraSnippets.length, 2)
    assert.match(outcome.content, /\[Tokio - An asynchronous Rust runtime\]\(https:\/\/tokio\.rs\/\)/)

    assert.equal(brave.requests.length, 1)
    assert.equal(brave.requests[0]!.method, 'GET')
    assert.equal(brave.requests[0]!.path, `/res/v1/web/search?q=rust+async+runtime&count=20&offset=0&${FIXED_PARAMS}`)
    assert.equal(brave.requests[0]!.headers['x-subscription-token'], KEY)

    const shown = onlyJson(await dsh(['session', 'show', 'brave-cli', '--json'], { home }))
    assert.deepEqual(shown.events.map((event: any) => `${event.type}:${event.visibility}`), ['tool/call:surface', 'web/brave-search-request:log', 'tool/result:surface'])
    const request = shown.events[1].data
    assert.equal(request.endpoint, `${brave.url}/res/v1/web/search`)
    assert.equal(`/res/v1/web/search?${request.queryString}`, brave.requests[0]!.path)
    const log = await readFile(join(home, 'sessions', 'brave-cli', 'events.jsonl'), 'utf8')
    assert.ok(!log.includes(KEY), 'the key is not in the session log')
    assert.ok(!/x-subscription-token/i.test(log), 'no headers in the session log')
  })

  it('a rotated key reaches the very next dsh search', async () => {
    assert.equal((await dsh(['credentials', 'set', 'BRAVE_API_KEY'], { home, input: 'BSA-rotated-key-0000' })).code, 0)
    brave.reset()
    brave.reply('brave-multi-result')
    assert.equal((await dsh(['search', 'tokio', '--json', ...OVERLAY], { home, env })).code, 0)
    assert.equal(brave.requests[0]!.headers['x-subscription-token'], 'BSA-rotated-key-0000')
  })

  it('a monthly quota used up comes back as WEB_PROVIDER_QUOTA_EXHAUSTED after one request', async () => {
    brave.reset()
    brave.reply('brave-429-month-exhausted', 'brave-multi-result')
    const result = await dsh(['call', 'web_search', '{"queries":["tokio"]}', '--json', ...OVERLAY], { home, env })
    assert.equal(result.code, 1)
    const outcome = JSON.parse(result.stdout)
    assert.equal(brave.requests.length, 1, 'not retried')
    assert.equal(outcome.error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.deepEqual(outcome.structured.failures.map((failure: any) => [failure.code, failure.retryable]), [['WEB_PROVIDER_QUOTA_EXHAUSTED', false]])
    assert.match(outcome.error.message, /the monthly quota of 2000 requests has none left and resets in 16\.4 days/)
  })
})
