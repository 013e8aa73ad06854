import assert from 'node:assert/strict'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FixtureServer } from './support/fixture-server.js'
import { dsh, onlyJson, tempHome } from './helpers.js'
import { PageServer } from './page-server.js'

const DEEPSEEK_FIXTURES = new URL('../packages/web-search-deepseek/tests/fixtures/', import.meta.url)
const KEY = 'sk-e2e-stored-key-0123456789'

describe('end to end through dsh and the shipped presets', () => {
  let home: string
  let messages: FixtureServer
  let pages: PageServer
  let env: Record<string, string>
  before(async () => {
    home = await tempHome()
    messages = await FixtureServer.start(DEEPSEEK_FIXTURES)
    pages = await new PageServer().listen()
    env = { DEEPSEEK_SEARCH_BASE_URL: `${messages.url}/anthropic` }
    const stored = await dsh(['credentials', 'set', 'DEEPSEEK_API_KEY'], { home, input: `${KEY}\n` })
    assert.equal(stored.code, 0, stored.stderr)
  })
  after(async () => {
    await messages.close()
    await pages.close()
    await rm(home, { recursive: true, force: true })
  })

  it('web_search via dsh call: mapped sources, the stored key sent, tool events and the log-only request event in the session', async () => {
    messages.reset()
    messages.reply('deepseek-multi-result')
    const result = await dsh(['call', 'web_search', '{"queries":["node lts"]}', '--session', 'e2e-search', '--json'], { home, env })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.deepEqual(outcome.structured.sources.slice(0, 3).map((source: any) => source.url), [
      'https://nodejs.org/en/about/previous-releases',
      'https://github.com/nodejs/Release',
      'https://endoflife.date/nodejs',
    ])
    assert.match(outcome.content, /\[Node\.js Releases\]\(https:\/\/nodejs\.org\/en\/about\/previous-releases\)/)
    assert.equal(messages.requests.length, 1)
    assert.equal(messages.requests[0].path, '/anthropic/v1/messages')
    assert.equal(messages.requests[0].headers['x-api-key'], KEY)

    const shown = onlyJson(await dsh(['session', 'show', 'e2e-search', '--json'], { home }))
    assert.deepEqual(shown.events.map((event: any) => `${event.type}:${event.visibility}`), [
      'tool/call:surface',
      'web/deepseek-search-llm-request:log',
      'tool/result:surface',
    ])
    const request = shown.events[1].data
    assert.equal(request.endpoint, `${messages.url}/anthropic/v1/messages`)
    assert.equal(request.apiVersion, '2023-06-01')
    assert.deepEqual(request.body, JSON.parse(messages.requests[0].body))
    const log = await readFile(join(home, 'sessions', 'e2e-search', 'events.jsonl'), 'utf8')
    assert.ok(!log.includes(KEY), 'the key must not be in the session log')
  })

  it('a rotated key reaches the very next search', async () => {
    messages.reset()
    messages.reply('deepseek-multi-result')
    assert.equal((await dsh(['credentials', 'set', 'DEEPSEEK_API_KEY'], { home, input: 'sk-rotated' })).code, 0)
    assert.equal((await dsh(['search', 'node', 'lts', '--json'], { home, env })).code, 0)
    assert.equal(messages.requests[0].headers['x-api-key'], 'sk-rotated')
    await dsh(['credentials', 'set', 'DEEPSEEK_API_KEY'], { home, input: KEY })
  })

  it('dsh fetch prints a trusted loopback page as markdown', async () => {
    const result = await dsh(['fetch', `${pages.origin}/article`, '--private-host', '127.0.0.1'], { home })
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /Loopback article/)
    assert.match(result.stdout, /Paragraph 1 of the loopback article/)
    assert.ok(!/Copyright nobody/.test(result.stdout), 'the footer is not main content')
  })

  it('dsh fetch pages through the document to its end, and the pages rebuild it exactly', async () => {
    const whole = onlyJson(await dsh(['fetch', `${pages.origin}/article`, '--private-host', '127.0.0.1', '--format', 'text', '--max-chars', '100000', '--json'], { home }))
    const total = whole.structured.totalChars
    assert.ok(total > 2000)
    let offset = 0
    let rebuilt = ''
    for (let round = 0; round < 20 && offset !== undefined; round++) {
      const page = onlyJson(await dsh(['fetch', `${pages.origin}/article`, '--private-host', '127.0.0.1', '--format', 'text', '--max-chars', '1500', '--offset', String(offset), '--json'], { home }))
      rebuilt += page.structured.text
      offset = page.structured.nextOffset
    }
    assert.equal(offset, undefined)
    assert.equal(rebuilt, whole.structured.text)
  })

  it('dsh fetch refuses loopback that no operator trusted, before any connection', async () => {
    const result = await dsh(['fetch', `${pages.origin}/article`, '--json'], { home })
    assert.equal(result.code, 1)
    const outcome = JSON.parse(result.stdout)
    assert.equal(outcome.error.code, 'WEB_BLOCKED_ADDRESS')
    assert.match(outcome.error.message, /127\.0\.0\.0\/8/)
  })

  it('dsh fetch --resolve maps a name to a trusted loopback address', async () => {
    const result = await dsh(['fetch', `http://docs.test:${pages.port}/article`, '--resolve', 'docs.test:127.0.0.1', '--private-host', 'docs.test', '--json'], { home })
    const outcome = onlyJson(result)
    assert.equal(outcome.structured.provenance.address, '127.0.0.1')
    assert.equal(outcome.structured.url, `http://docs.test:${pages.port}/article`)
  })

  it('dsh run-code runs code in the ptc preset that calls web_search against the fixture', async () => {
    messages.reset()
    messages.reply('deepseek-multi-result')
    const codeFile = join(home, 'search.js')
    await writeFile(codeFile, `const found = await tools.web_search({ queries: ['node lts'] })\nconsole.log('sources:', found.sources.length)\nfound.sources.map((source) => source.url)\n`)
    const result = await dsh(['run-code', codeFile, '--json'], { home, env })
    const outcome = onlyJson(result)
    assert.equal(outcome.isError, false, outcome.content)
    assert.equal(outcome.structured.result[0], 'https://nodejs.org/en/about/previous-releases')
    assert.deepEqual(outcome.structured.calls.map((call: any) => call.tool), ['web_search'])
    assert.match(outcome.structured.logs[0], /^sources: \d+$/)
  })
})
