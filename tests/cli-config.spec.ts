// Config errors that say what changed, and the network policy's effect where the operator looks.
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { dsh, onlyJson, tempHome } from './helpers.js'

describe('config errors in an overlay', () => {
  let home: string
  before(async () => (home = await tempHome()))
  after(() => rm(home, { recursive: true, force: true }))

  it('say "give the row a config for the new package" only when the overlay changed the package', async () => {
    // The base names the package, the overlay only gives a config (and another restates the same name): the package never changed.
    const configOnly = join(home, 'config-only.cordis.yml')
    await writeFile(configOnly, '- id: web\n  config: { nope: 1 }\n')
    const sameName = join(home, 'same-name.cordis.yml')
    await writeFile(sameName, '- id: web\n  name: dsh-web\n')
    for (const overlays of [[configOnly], [sameName, configOnly]]) {
      const result = await dsh(['compose', ...overlays.flatMap((file) => ['--config', file])], { home })
      assert.equal(result.code, 1)
      assert.match(result.stderr, /row "web" \(dsh-web\): key "nope" is not a config key/)
      assert.doesNotMatch(result.stderr, /give the row a config for the new package/)
    }

    const echo = join(home, 'echo.cordis.yml')
    await writeFile(echo, '- id: echo\n  name: dsh-test-plugins/echo-tool\n  config: { prefix: x }\n')
    const nameOnly = join(home, 'name-only.cordis.yml')
    await writeFile(nameOnly, '- id: echo\n  name: dsh-test-plugins/url-tool\n')
    const swapped = await dsh(['compose', '--config', echo, '--config', nameOnly], { home })
    assert.equal(swapped.code, 1)
    assert.match(swapped.stderr, /set the package to dsh-test-plugins\/url-tool; this config came from .*, written for dsh-test-plugins\/echo-tool: give the row a config for the new package/)
  })
})

describe('the network policy in dsh tools and dsh doctor', () => {
  let home: string
  let allowlist: string
  before(async () => {
    home = await tempHome()
    allowlist = join(home, 'allowlist.cordis.yml')
    await writeFile(allowlist, '- id: network\n  config: { mode: allowlist, domains: [docs.example.com] }\n')
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('dsh tools says what the allowlist does to web_search and web_fetch; under allow it says nothing', async () => {
    const listed = onlyJson(await dsh(['tools', '--json', '--preset', 'standard', '--config', allowlist], { home }))
    const byName = Object.fromEntries(listed.tools.map((tool: any) => [tool.name, tool]))
    assert.equal(byName.web_search.networkPolicy, 'runs only with allowed_domains inside the allowlist (docs.example.com)')
    assert.equal(byName.web_fetch.networkPolicy, 'runs only when url is on the allowlist (docs.example.com)')
    const human = await dsh(['tools', '--preset', 'standard', '--config', allowlist], { home })
    assert.match(human.stdout, /^web_search  \[net_read\]\n  network policy: runs only with allowed_domains inside the allowlist \(docs\.example\.com\)$/m)
    const open = onlyJson(await dsh(['tools', '--json', '--preset', 'standard'], { home }))
    assert.ok(open.tools.every((tool: any) => tool.networkPolicy === undefined))
  })

  it('dsh doctor reports the mode and each tool it limits; deny is a warning per tool that the model still sees', async () => {
    const allowed = JSON.parse((await dsh(['doctor', '--json', '--preset', 'standard', '--config', allowlist], { home })).stdout)
    const check = (document: any, id: string) => document.checks.find((item: any) => item.id === id)
    assert.equal(check(allowed, 'network').message, 'network policy mode: allowlist (docs.example.com)')
    assert.equal(check(allowed, 'network.web_search').status, 'ok')
    assert.match(check(allowed, 'network.web_search').message, /web_search: runs only with allowed_domains inside the allowlist/)
    const deny = join(home, 'deny.cordis.yml')
    await writeFile(deny, '- id: network\n  config: { mode: deny }\n')
    const denied = JSON.parse((await dsh(['doctor', '--json', '--preset', 'standard', '--config', deny], { home })).stdout)
    assert.equal(check(denied, 'network.web_fetch').status, 'warn')
    assert.match(check(denied, 'network.web_fetch').message, /refused: network policy mode is deny; the model still sees it/)
    assert.ok(check(denied, 'network.web_fetch').fix)
  })

  it('dsh doctor warns that OPENAI_BASE_URL is not read, naming OPENAI_SEARCH_BASE_URL', async () => {
    const set = JSON.parse((await dsh(['doctor', '--json'], { home, env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } })).stdout)
    const warning = set.checks.find((item: any) => item.id === 'env.OPENAI_BASE_URL')
    assert.equal(warning.status, 'warn')
    assert.match(warning.message, /OPENAI_BASE_URL is set but not read: the OpenAI search provider \(openai-official\) reads OPENAI_SEARCH_BASE_URL/)
    const unset = JSON.parse((await dsh(['doctor', '--json'], { home, env: { OPENAI_BASE_URL: undefined } })).stdout)
    assert.equal(unset.checks.find((item: any) => item.id === 'env.OPENAI_BASE_URL'), undefined)
  })
})
