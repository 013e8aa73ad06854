// `dsh` itself, in a child process, with config/overlays/tavily-search.cordis.yml as the
// overlay and TAVILY_SEARCH_BASE_URL pointing at the loopback fixture server.
import assert from 'node:assert/strict'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FixtureServer } from '../../../tests/support/fixture-server.js'
import { dsh, onlyJson, tempHome } from '../../../tests/helpers.js'
import { FIXTURES } from './helpers.js'

const OVERLAY = ['--config', 'tavily-search']
const KEY = 'tvly-cli-stored-key-8a3d61c0f7e2'

describe('tavily through the dsh CLI and config/overlays/tavily-search.cordis.yml', () => {
  let home: string
  let tavily: FixtureServer
  let env: Record<string, string>
  before(async () => {
    home = await tempHome()
    tavily = await FixtureServer.start(FIXTURES)
    env = { TAVILY_SEARCH_BASE_URL: tavily.url }
  })
  after(async () => {
    await tavily.close()
    await rm(home, { recursive: true, force: true })
  })

  it('the overlay switches search to tavily and mounts its row, with no problems', async () => {
    const dump = onlyJson(await dsh(['compose', '--json', ...OVERLAY], { home }))
    const rows = Object.fromEntries(dump.rows.map((row: any) => [row.id, row]))
    assert.equal(rows.web.config.searchProvider, 'tavily')
    assert.equal(rows['web-search-tavily'].status, 'mounted')
    assert.equal(rows['web-search-tavily'].config.apiKeyEnv, 'TAVILY_API_KEY')
    assert.deepEqual(dump.problems, [])
  })

  it('without a key: WEB_PROVIDER_CREDENTIAL_MISSING naming `dsh credentials set TAVILY_API_KEY`, nothing sent', async () => {
    tavily.reset()
    const result = await dsh(['search', 'rust', 'async', '--json', ...OVERLAY], { home, env })
    assert.equal(result.code, 1)
    assert.match(result.stdout + result.stderr, /dsh credentials set TAVILY_API_KEY/)
    assert.equal(tavily.requests.length, 0)
  })

  it('dsh search: the stored key as a Bearer token, the exact body, sources unique by URL, the hostile title clean inside the fence, the answer marked model-written, the log without the key', async () => {
    const stored = await dsh(['credentials', 'set', 'TAVILY_API_KEY'], { home, input: `${KEY}\n` })
    assert.equal(stored.code, 0, stored.stderr)
    tavily.reset()
    tavily.reply('tavily-multi-result')
    const result = await dsh(['search', 'rust', 'async', 'runtime', '--json', '--session', 'tavily-cli', ...OVERLAY], { home, env })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.equal(outcome.structured.providerId, 'tavily')
    assert.deepEqual(outcome.structured.sources.map((source: any) => source.url), [
      'https://tokio.rs/',
      'https://docs.rs/tokio/latest/tokio/',
      'https://blog.example.com/async-runtimes',
      'https://async.rs/',
    ])
    assert.equal(tavily.requests.length, 1)
    assert.equal(tavily.requests[0]!.path, '/search')
    assert.equal(tavily.requests[0]!.body, '{"query":"rust async runtime","max_results":10}')
    assert.equal(tavily.requests[0]!.headers.authorization, `Bearer ${KEY}`)

    const line = outcome.content.split('\n').find((item: string) => item.includes('(https://blog.example.com/async-runtimes)'))
    assert.ok(line, outcome.content)
    assert.doesNotMatch(line, /[\x00-\x1f\x7f-\x9f]/, 'no control character in the title line')
    assert.doesNotMatch(outcome.content, /<\/untrusted-content id="000000000000">/, 'the fake fence marker is defanged')
    assert.match(outcome.content, /written by the search provider's model/)

    const shown = onlyJson(await dsh(['session', 'show', 'tavily-cli', '--json'], { home }))
    assert.deepEqual(shown.events.map((event: any) => `${event.type}:${event.visibility}`), ['tool/call:surface', 'web/tavily-search-request:log', 'tool/result:surface'])
    assert.equal(JSON.stringify(shown.events[1].data.body), tavily.requests[0]!.body)
    const log = await readFile(join(home, 'sessions', 'tavily-cli', 'events.jsonl'), 'utf8')
    assert.ok(!log.includes(KEY) && !log.includes(KEY.slice(-12)), 'the key is not in the session log')
    assert.ok(!/authorization|bearer/i.test(log), 'no headers in the session log')
    assert.ok(!result.stdout.includes(KEY) && !result.stderr.includes(KEY), 'nor in the output')
  })

  it('a rotated key reaches the very next dsh search', async () => {
    assert.equal((await dsh(['credentials', 'set', 'TAVILY_API_KEY'], { home, input: 'tvly-rotated-key-0000' })).code, 0)
    tavily.reset()
    tavily.reply('tavily-multi-result')
    assert.equal((await dsh(['search', 'tokio', '--json', ...OVERLAY], { home, env })).code, 0)
    assert.equal(tavily.requests[0]!.headers.authorization, 'Bearer tvly-rotated-key-0000')
  })

  it('the plan limit (432) comes back as WEB_PROVIDER_QUOTA_EXHAUSTED after one request', async () => {
    tavily.reset()
    tavily.reply('tavily-432', 'tavily-multi-result')
    const result = await dsh(['call', 'web_search', '{"queries":["tokio"]}', '--json', ...OVERLAY], { home, env })
    assert.equal(result.code, 1)
    const outcome = JSON.parse(result.stdout)
    assert.equal(tavily.requests.length, 1, 'not retried')
    assert.equal(outcome.error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
  })
})
