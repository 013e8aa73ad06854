// `dsh` itself, in a child process, with config/overlays/perplexity-search.cordis.yml as the
// overlay and PERPLEXITY_SEARCH_BASE_URL pointing at the loopback fixture server.
import assert from 'node:assert/strict'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FixtureServer } from '../../../tests/support/fixture-server.js'
import { dsh, onlyJson, tempHome } from '../../../tests/helpers.js'
import { FIXTURES } from './helpers.js'

const OVERLAY = ['--config', 'perplexity-search']
const KEY = 'pplx-cli-stored-key-8a3d61c0f7e2'

describe('perplexity through the dsh CLI and config/overlays/perplexity-search.cordis.yml', () => {
  let home: string
  let perplexity: FixtureServer
  let env: Record<string, string>
  before(async () => {
    home = await tempHome()
    perplexity = await FixtureServer.start(FIXTURES)
    env = { PERPLEXITY_SEARCH_BASE_URL: perplexity.url }
  })
  after(async () => {
    await perplexity.close()
    await rm(home, { recursive: true, force: true })
  })

  it('the overlay switches search to perplexity and mounts its row, with no problems', async () => {
    const dump = onlyJson(await dsh(['compose', '--json', ...OVERLAY], { home }))
    const rows = Object.fromEntries(dump.rows.map((row: any) => [row.id, row]))
    assert.equal(rows.web.config.searchProvider, 'perplexity')
    assert.equal(rows['web-search-perplexity'].status, 'mounted')
    assert.equal(rows['web-search-perplexity'].config.apiKeyEnv, 'PERPLEXITY_API_KEY')
    assert.deepEqual(dump.problems, [])
  })

  it('without a key: WEB_PROVIDER_CREDENTIAL_MISSING naming `dsh credentials set PERPLEXITY_API_KEY`, nothing sent', async () => {
    perplexity.reset()
    const result = await dsh(['search', 'rust', 'async', '--json', ...OVERLAY], { home, env })
    assert.equal(result.code, 1)
    assert.match(result.stdout + result.stderr, /dsh credentials set PERPLEXITY_API_KEY/)
    assert.equal(perplexity.requests.length, 0)
  })

  it('dsh search: the stored key as a Bearer token, the exact body, sources unique by URL, the hostile title clean inside the fence, no answer (the Search API runs no model), the log without the key', async () => {
    const stored = await dsh(['credentials', 'set', 'PERPLEXITY_API_KEY'], { home, input: `${KEY}\n` })
    assert.equal(stored.code, 0, stored.stderr)
    perplexity.reset()
    perplexity.reply('perplexity-multi-result')
    const result = await dsh(['search', 'rust', 'async', 'runtime', '--json', '--session', 'perplexity-cli', ...OVERLAY], { home, env })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.equal(outcome.structured.providerId, 'perplexity')
    assert.deepEqual(outcome.structured.sources.map((source: any) => source.url), [
      'https://tokio.rs/',
      'https://docs.rs/tokio/latest/tokio/',
      'https://blog.example.com/async-runtimes',
      'https://async.rs/',
    ])
    assert.equal(perplexity.requests.length, 1)
    assert.equal(perplexity.requests[0]!.path, '/search')
    assert.equal(perplexity.requests[0]!.body, '{"query":"rust async runtime","max_results":10}')
    assert.equal(perplexity.requests[0]!.headers.authorization, `Bearer ${KEY}`)

    const line = outcome.content.split('\n').find((item: string) => item.includes('(https://blog.example.com/async-runtimes)'))
    assert.ok(line, outcome.content)
    assert.doesNotMatch(line, /[\x00-\x1f\x7f-\x9f]/, 'no control character in the title line')
    assert.doesNotMatch(outcome.content, /<\/untrusted-content id="000000000000">/, 'the fake fence marker is defanged')
    assert.doesNotMatch(outcome.content, /written by the search provider's model/)

    const shown = onlyJson(await dsh(['session', 'show', 'perplexity-cli', '--json'], { home }))
    assert.deepEqual(shown.events.map((event: any) => `${event.type}:${event.visibility}`), ['tool/call:surface', 'web/perplexity-search-request:log', 'tool/result:surface'])
    assert.equal(JSON.stringify(shown.events[1].data.body), perplexity.requests[0]!.body)
    const log = await readFile(join(home, 'sessions', 'perplexity-cli', 'events.jsonl'), 'utf8')
    assert.ok(!log.includes(KEY) && !log.includes(KEY.slice(-12)), 'the key is not in the session log')
    assert.ok(!/authorization|bearer/i.test(log), 'no headers in the session log')
    assert.ok(!result.stdout.includes(KEY) && !result.stderr.includes(KEY), 'nor in the output')
  })

  it('a rotated key reaches the very next dsh search', async () => {
    assert.equal((await dsh(['credentials', 'set', 'PERPLEXITY_API_KEY'], { home, input: 'pplx-rotated-key-0000' })).code, 0)
    perplexity.reset()
    perplexity.reply('perplexity-multi-result')
    assert.equal((await dsh(['search', 'tokio', '--json', ...OVERLAY], { home, env })).code, 0)
    assert.equal(perplexity.requests[0]!.headers.authorization, 'Bearer pplx-rotated-key-0000')
  })

  it('credits used up (402) come back as WEB_PROVIDER_QUOTA_EXHAUSTED after one request', async () => {
    perplexity.reset()
    perplexity.reply('perplexity-402', 'perplexity-multi-result')
    const result = await dsh(['call', 'web_search', '{"queries":["tokio"]}', '--json', ...OVERLAY], { home, env })
    assert.equal(result.code, 1)
    const outcome = JSON.parse(result.stdout)
    assert.equal(perplexity.requests.length, 1, 'not retried')
    assert.equal(outcome.error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
  })
})
