// The network policy in allowlist mode and web_search agree, through the
// real CLI, the shipped composition with an overlay, and the DeepSeek wire
// format answered on loopback: a search whose allowed_domains lie inside the
// allowlist runs with that filter; one without a filter, or with an entry
// outside the allowlist, is refused with a message saying how to call it,
// and nothing reaches the provider.
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { FixtureServer } from './support/fixture-server.js'
import { dsh, onlyJson, tempHome } from './helpers.js'

const DEEPSEEK_FIXTURES = new URL('../packages/web-search-deepseek/tests/fixtures/', import.meta.url)

describe('web_search under a network allowlist', () => {
  let home: string
  let messages: FixtureServer
  let overlay: string
  let env: Record<string, string>
  before(async () => {
    home = await tempHome()
    messages = await FixtureServer.start(DEEPSEEK_FIXTURES)
    env = { DEEPSEEK_SEARCH_BASE_URL: `${messages.url}/anthropic` }
    assert.equal((await dsh(['credentials', 'set', 'DEEPSEEK_API_KEY'], { home, input: 'sk-allowlist-0123456789\n' })).code, 0)
    overlay = join(home, 'allowlist.cordis.yml')
    await writeFile(overlay, '- id: network\n  config:\n    mode: allowlist\n    domains: [nodejs.org, github.com/nodejs]\n')
  })
  after(async () => {
    await messages.close()
    await rm(home, { recursive: true, force: true })
  })

  const search = (input: object) => dsh(['call', 'web_search', JSON.stringify(input), '--config', overlay, '--json'], { home, env })

  it('runs a search whose allowed_domains lie inside the allowlist, with that filter', async () => {
    messages.reset()
    messages.reply('deepseek-multi-result')
    const outcome = onlyJson(await search({ queries: ['node lts'], allowed_domains: ['nodejs.org', 'github.com/nodejs/Release'] }))
    assert.equal(outcome.isError, false, outcome.content)
    assert.equal(messages.requests.length, 1)
    const sent = messages.requests[0]!.body
    assert.match(sent, /nodejs\.org/)
    assert.match(sent, /github\.com\/nodejs\/release/i)
  })

  it('refuses a search without allowed_domains, saying how to call it, and sends nothing', async () => {
    messages.reset()
    const refused = await search({ queries: ['node lts'] })
    assert.equal(refused.code, 1)
    const outcome = JSON.parse(refused.stdout)
    assert.equal(outcome.isError, true)
    assert.equal(outcome.error.code, 'TOOL_REFUSED')
    assert.match(outcome.content, /web_search without allowed_domains could reach any site/)
    assert.match(outcome.content, /Call web_search with allowed_domains set to entries inside the allowlist \(nodejs\.org, github\.com\/nodejs\)/)
    assert.equal(messages.requests.length, 0)
  })

  it('refuses an allowed_domains entry that reaches past the allowlist, naming it', async () => {
    messages.reset()
    for (const [entry, shown] of [['example.org', /"example\.org" \(example\.org and its subdomains\)/], ['github.com', /"github\.com" \(github\.com and its subdomains\)/]] as const) {
      const refused = await search({ queries: ['node lts'], allowed_domains: ['nodejs.org', entry] })
      assert.equal(refused.code, 1)
      const outcome = JSON.parse(refused.stdout)
      assert.equal(outcome.error?.code, 'TOOL_REFUSED', entry)
      assert.match(outcome.content, shown)
      assert.match(outcome.content, /is not inside this network policy's allowlist/)
    }
    assert.equal(messages.requests.length, 0)
  })
})
