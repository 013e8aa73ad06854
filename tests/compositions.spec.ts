import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { dsh, onlyJson, ROOT, tempHome } from './helpers.js'

/** The rosters the shipped files promise, pinned. */
const ROSTERS: Record<string, string[]> = {
  base: ['web_search'],
  standard: ['web_fetch', 'web_search'],
  web: ['web_fetch', 'web_search'],
  ptc: ['run_code'],
  provenance: ['web_fetch', 'web_search'],
  minimal: [],
}

describe('shipped compositions', () => {
  let home: string
  before(async () => {
    home = await tempHome()
  })
  after(() => rm(home, { recursive: true, force: true }))

  for (const [preset, names] of Object.entries(ROSTERS)) {
    it(`${preset} boots with the roster ${names.join(', ') || '(none)'}`, async () => {
      const args = preset === 'base' ? ['tools', '--json'] : ['tools', '--json', '--preset', preset]
      const roster = onlyJson(await dsh(args, { home }))
      assert.deepEqual(roster.tools.map((tool: any) => tool.name), names)
      const compose = onlyJson(await dsh(args.map((arg) => (arg === 'tools' ? 'compose' : arg)), { home }))
      assert.deepEqual(compose.problems, [], `${preset}: ${compose.problems.join('; ')}`)
      assert.deepEqual(compose.warnings, [], `${preset}: ${compose.warnings.join('; ')}`)
    })
  }

  it('every value the shipped files state has a comment saying why', async () => {
    const { readdir, readFile } = await import('node:fs/promises')
    const { parseLayer } = await import('dsh-harness')
    const files = ['packages/harness/config/base.cordis.yml', ...(await readdir(join(ROOT, 'packages/harness/config/presets'))).map((file) => `packages/harness/config/presets/${file}`)]
    let checked = 0
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8')
      const lines = text.split('\n')
      for (const row of (await parseLayer(file, text)).rows) {
        if (!row.config) continue
        const start = lines.findIndex((line) => line === `- id: ${row.id}`)
        let previous = start
        for (const key of Object.keys(row.config)) {
          const at = lines.findIndex((line, index) => index > start && new RegExp(`^\\s+${key}:`).test(line))
          assert.ok(lines.slice(previous + 1, at).some((line) => /^\s*#/.test(line)), `${file}: row "${row.id}" sets ${key} without a comment saying why`)
          previous = at
          checked++
        }
      }
    }
    assert.ok(checked >= 10, `checked only ${checked} values`)
  })

  it('the base states its providers by id, fetch off and the one-minute search budget: each value comes from base.cordis.yml', async () => {
    const dump = onlyJson(await dsh(['compose', '--json'], { home }))
    const rows = Object.fromEntries(dump.rows.map((row: any) => [row.id, row]))
    assert.deepEqual(Object.keys(rows), ['credentials', 'session', 'tools', 'network', 'web', 'web-search-deepseek', 'web-fetch-http', 'tool-web'])
    for (const row of dump.rows) assert.equal(row.status, 'mounted', row.id)
    assert.deepEqual(rows.web.config, {
      searchProvider: 'deepseek-official',
      fetchProvider: 'http',
      stateTimeoutMs: 250,
      stateRetryMs: 2000,
      memoryMaxBytes: 50 * 1024 * 1024,
      searchCacheTtlMs: 0,
      searchLimits: {},
      render: 'never',
    })
    const base = /base\.cordis\.yml$/
    assert.match(rows.web.configSources.searchProvider, base)
    assert.match(rows.web.configSources.fetchProvider, base)
    assert.equal(rows.web.configSources.searchCacheTtlMs, 'plugin default')
    assert.equal(rows['tool-web'].config.fetch, false)
    assert.equal(rows['tool-web'].config.searchTimeoutMs, 60000)
    assert.equal(rows['tool-web'].config.provenance, 'off')
    assert.match(rows['tool-web'].configSources.provenance, base)
    assert.match(rows['tool-web'].configSources.fetch, base)
    assert.match(rows['tool-web'].configSources.searchTimeoutMs, base)
    assert.equal(rows['tool-web'].config.search, true)
    assert.equal(rows['web-search-deepseek'].config.apiKeyEnv, 'DEEPSEEK_API_KEY')
    for (const preset of ['standard', 'ptc', 'web', 'render', 'provenance']) {
      const shown = onlyJson(await dsh(['compose', '--json', '--preset', preset], { home }))
      assert.equal(shown.rows.find((row: any) => row.id === 'tool-web').config.searchTimeoutMs, 60000, `${preset} keeps the minute`)
      assert.equal(shown.rows.find((row: any) => row.id === 'tool-web').config.provenance, preset === 'provenance' ? 'enforce' : 'off', `${preset}: provenance`)
    }
  })

  it('a composition of its own gives dsh-tool-web its provider-neutral 30 s, and a seam that names no provider refuses the call naming the key', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const own = await mkdtemp(join(tmpdir(), 'dsh-own-config-'))
    try {
      await writeFile(
        join(own, 'base.cordis.yml'),
        ['- id: credentials', '  name: dsh-harness/credentials', '- id: session', '  name: dsh-harness/session', '- id: tools', '  name: dsh-harness/tools',
          '- id: web', '  name: dsh-web', '- id: web-search-deepseek', '  name: dsh-web-search-deepseek', '- id: tool-web', '  name: dsh-tool-web', ''].join('\n'),
      )
      const dump = onlyJson(await dsh(['compose', '--json', '--config-dir', own], { home }))
      const rows = Object.fromEntries(dump.rows.map((row: any) => [row.id, row]))
      assert.equal(rows['tool-web'].config.searchTimeoutMs, 30000)
      assert.equal(rows['tool-web'].configSources.searchTimeoutMs, 'plugin default')
      assert.equal(rows.web.config.searchProvider, undefined)
      const result = await dsh(['call', 'web_search', '{"queries":["anything"]}', '--json', '--config-dir', own, '--allow-failed-rows'], { home, env: { DEEPSEEK_API_KEY: 'sk-test' } })
      const outcome = JSON.parse(result.stdout)
      assert.match(JSON.stringify(outcome), /searchProvider/)
    } finally {
      await rm(own, { recursive: true, force: true })
    }
  })

  it('redacts a literal apiKey in the dump', async () => {
    const { writeFile } = await import('node:fs/promises')
    const overlay = `${home}/literal-key.cordis.yml`
    await writeFile(overlay, '- id: web-search-deepseek\n  config: { apiKey: sk-literal-do-not-print }\n')
    const result = await dsh(['compose', '--json', '--config', overlay], { home })
    const dump = onlyJson(result)
    assert.equal(dump.rows.find((row: any) => row.id === 'web-search-deepseek').config.apiKey, '<redacted>')
    assert.ok(!result.stdout.includes('sk-literal-do-not-print'))
  })

  it('ptc shows run_code, whose description lists web_search and web_fetch for the code', async () => {
    const roster = onlyJson(await dsh(['tools', '--json', '--preset', 'ptc'], { home }))
    assert.match(roster.tools[0].description, /tools\.web_search\(input\)/)
    assert.match(roster.tools[0].description, /tools\.web_fetch\(input\)/)
    const dump = onlyJson(await dsh(['compose', '--json', '--preset', 'ptc'], { home }))
    assert.equal(dump.rows.find((row: any) => row.id === 'tools').config.mode, 'ptc')
  })

  it('keeps web_search registered when no key is configured: the call fails with the typed code', async () => {
    const result = await dsh(['call', 'web_search', '{"queries":["anything"]}', '--json'], { home, env: { DEEPSEEK_API_KEY: undefined } })
    assert.equal(result.code, 1)
    const outcome = JSON.parse(result.stdout)
    assert.equal(outcome.error.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
    assert.match(outcome.error.message, /dsh credentials set DEEPSEEK_API_KEY/)
  })
})

describe('docs kept true', () => {
  let home: string
  before(async () => {
    home = await tempHome()
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('--config openai-search (the shipped overlay, by name) switches search to openai-official and mounts its row', async () => {
    const dump = onlyJson(await dsh(['compose', '--json', '--config', 'openai-search'], { home }))
    const rows = Object.fromEntries(dump.rows.map((row: any) => [row.id, row]))
    assert.equal(rows.web.config.searchProvider, 'openai-official')
    assert.equal(rows['web-search-openai'].status, 'mounted')
    assert.deepEqual(dump.problems, [])
  })

  it('--config NAME is the shipped overlay whatever the working folder holds; a name that is not there exits 2 with the nearest', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { execFile } = await import('node:child_process')
    const { CLI, LOOPBACK_ONLY } = await import('./helpers.js')
    const elsewhere = await mkdtemp(join(tmpdir(), 'dsh-elsewhere-'))
    try {
      // A file of that very name in the working folder is not what a bare name means.
      await writeFile(join(elsewhere, 'brave-search'), '- id: decoy\n  name: dsh-not-a-package\n')
      const run = (args: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
          execFile(process.execPath, [CLI, ...args], { cwd: elsewhere, env: { ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home } }, (error, stdout, stderr) =>
            resolve({ code: error ? Number((error as any).code) : 0, stdout, stderr }),
          ),
        )
      const shown = await run(['compose', '--json', '--config', 'brave-search'])
      assert.equal(shown.code, 0, shown.stderr)
      const dump = JSON.parse(shown.stdout)
      assert.equal(dump.layers.at(-1), join(ROOT, 'packages/harness/config/overlays/brave-search.cordis.yml'))
      assert.equal(dump.rows.find((row: any) => row.id === 'web').config.searchProvider, 'brave')
      assert.ok(!dump.rows.some((row: any) => row.id === 'decoy'))
      const misspelled = await run(['tools', '--config', 'brave-serch'])
      assert.equal(misspelled.code, 2)
      assert.match(misspelled.stderr, /There is no shipped overlay "brave-serch" \(did you mean brave-search\?\): --config NAME takes one of anthropic-search, brave-search, exa-search, gemini-search, openai-search, perplexity-search, redis-state, searxng-search, tavily-search; for a file of your own give its path \(\.\/brave-serch\.cordis\.yml\)\./)
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })

  it('docs/composition.md lists exactly the base rows, in order', async () => {
    const { readFile } = await import('node:fs/promises')
    const text = await readFile(new URL('../docs/composition.md', import.meta.url), 'utf8')
    const table = text.split('`packages/harness/config/base.cordis.yml` mounts')[1].split('\n\n')[1]
    const documented = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1])
    const dump = onlyJson(await dsh(['compose', '--json'], { home }))
    assert.deepEqual(documented, dump.rows.map((row: any) => row.id))
  })
})
