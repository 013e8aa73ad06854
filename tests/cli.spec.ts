import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { dsh, LOOPBACK_ONLY, onlyJson, ROOT, tempHome } from './helpers.js'

describe('dsh CLI', () => {
  let home: string
  let echoOverlay: string
  before(async () => {
    home = await tempHome()
    echoOverlay = join(home, 'echo.cordis.yml')
    await writeFile(echoOverlay, `- id: echo\n  name: dsh-test-plugins/echo-tool\n  config: { prefix: cli }\n`)
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('dumps the shipped base as one JSON document with resolved configs', async () => {
    const dump = onlyJson(await dsh(['compose', '--json'], { home }))
    const rows = Object.fromEntries(dump.rows.map((row: any) => [row.id, row]))
    for (const id of ['credentials', 'session', 'tools', 'web']) assert.equal(rows[id]?.status, 'mounted', id)
    assert.equal(rows.credentials.config.home, home)
    assert.deepEqual(dump.problems, [])
  })

  it('boots every shipped preset', async () => {
    for (const preset of ['standard', 'web', 'ptc', 'minimal']) {
      const dump = onlyJson(await dsh(['compose', '--json', '--preset', preset], { home }))
      assert.equal(dump.preset, preset)
      assert.ok(dump.layers.at(-1).endsWith(`presets/${preset}.cordis.yml`))
      assert.deepEqual(dump.problems, [], preset)
    }
  })

  it('works through the README command: pnpm --silent dsh compose --json', async () => {
    const { stdout } = await promisify(execFile)('npx', ['-y', 'pnpm@12.4.2', '--silent', 'dsh', 'compose', '--json'], {
      cwd: ROOT,
      // Offline: npx takes pnpm from its cache (the install command put it there) and asks no registry.
      env: { ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home, npm_config_offline: 'true' },
    })
    assert.ok(Array.isArray(JSON.parse(stdout).rows))
  })

  it('lists the roster with descriptions and schemas, and calls a tool into a session it can show', async () => {
    const roster = onlyJson(await dsh(['tools', '--json', '--preset', 'minimal', '--config', echoOverlay], { home }))
    assert.deepEqual(roster.tools.map((tool: any) => tool.name), ['echo'])
    assert.equal(roster.tools[0].inputSchema.additionalProperties, false)
    const called = await dsh(['call', 'echo', '{"text":"hello"}', '--session', 'cli-test', '--config', echoOverlay], { home })
    assert.equal(called.code, 0, called.stderr)
    assert.equal(called.stdout, 'cli: hello\n')
    const shown = onlyJson(await dsh(['session', 'show', 'cli-test', '--json'], { home }))
    assert.deepEqual(shown.events.map((event: any) => event.type), ['tool/call', 'tool/result'])
    await stat(join(home, 'sessions', 'cli-test', 'events.jsonl'))
  })

  it('prints a refused argument as an error outcome and exits non-zero', async () => {
    const result = await dsh(['call', 'echo', '{"text":"x","headers":{}}', '--json', '--config', echoOverlay], { home })
    assert.equal(result.code, 1)
    const outcome = JSON.parse(result.stdout)
    assert.equal(outcome.isError, true)
    assert.match(outcome.error.message, /unknown argument "headers"/)
  })

  it('stores, rotates and removes a credential read from stdin, never printing it', async () => {
    const name = 'DSH_CLI_TEST_KEY'
    assert.equal((await dsh(['credentials', 'set', name], { home, input: 'first-secret\n' })).code, 0)
    let listed = await dsh(['credentials', 'list', '--json'], { home })
    assert.deepEqual(onlyJson(listed).credentials.find((item: any) => item.name === name), { name, configured: true, source: 'store', value: '<redacted>', namedBy: [] })
    assert.ok(!listed.stdout.includes('first-secret'))
    assert.equal((await dsh(['credentials', 'set', name], { home, input: 'second-secret' })).code, 0)
    const stored = JSON.parse(await readFile(join(home, 'credentials.json'), 'utf8'))
    assert.equal(stored.credentials[name].value, 'second-secret')
    assert.equal((await stat(join(home, 'credentials.json'))).mode & 0o777, 0o600)
    assert.equal((await dsh(['credentials', 'unset', name], { home })).code, 0)
    listed = await dsh(['credentials', 'list', '--json'], { home })
    assert.equal(onlyJson(listed).credentials.find((item: any) => item.name === name), undefined)
  })

  it('credentials list names every credential the rows reference, configured or not and by which row, never a value (was: DEEPSEEK_API_KEY alone)', async () => {
    const own = await tempHome()
    try {
      const proxies = join(own, 'proxies.cordis.yml')
      await writeFile(proxies, [
        '- id: web-fetch-http',
        "  config: { proxy: { url: 'http://127.0.0.1:9', credential: CORP_PROXY_AUTH } }",
        '- id: web-search-brave',
        "  config: { proxy: { url: 'http://127.0.0.1:9', credential: CORP_PROXY_AUTH } }",
      ].join('\n') + '\n')
      assert.equal((await dsh(['credentials', 'set', 'DSH_REDIS_URL'], { home: own, input: 'redis://:stored-secret@127.0.0.1:9/0' })).code, 0)
      assert.equal((await dsh(['credentials', 'set', 'OLD_KEY'], { home: own, input: 'old-secret' })).code, 0)
      const env = { BRAVE_API_KEY: 'env-secret' }

      const base = onlyJson(await dsh(['credentials', 'list', '--json'], { home: own, env }))
      assert.deepEqual(base.credentials.map((item: any) => [item.name, item.namedBy]), [
        ['DEEPSEEK_API_KEY', [{ row: 'web-search-deepseek', key: 'apiKeyEnv' }]],
        ['DSH_REDIS_URL', []],
        ['OLD_KEY', []],
      ])

      const args = ['credentials', 'list', '--config', join(ROOT, 'config/overlays/redis-state.cordis.yml'), '--config', join(ROOT, 'config/overlays/brave-search.cordis.yml'), '--config', proxies]
      const listed = await dsh([...args, '--json'], { home: own, env })
      assert.deepEqual(onlyJson(listed).credentials, [
        { name: 'BRAVE_API_KEY', configured: true, source: 'environment', value: '<redacted>', namedBy: [{ row: 'web-search-brave', key: 'apiKeyEnv' }] },
        { name: 'CORP_PROXY_AUTH', configured: false, namedBy: [{ row: 'web-fetch-http', key: 'proxy.credential' }, { row: 'web-search-brave', key: 'proxy.credential' }] },
        { name: 'DEEPSEEK_API_KEY', configured: false, namedBy: [{ row: 'web-search-deepseek', key: 'apiKeyEnv' }] },
        { name: 'DSH_REDIS_URL', configured: true, source: 'store', value: '<redacted>', namedBy: [{ row: 'state-redis', key: 'urlCredential' }] },
        { name: 'OLD_KEY', configured: true, source: 'store', value: '<redacted>', namedBy: [] },
      ])
      const human = await dsh(args, { home: own, env })
      assert.equal(human.code, 0, human.stderr)
      assert.match(human.stdout, /^CORP_PROXY_AUTH +not set +named by web-fetch-http\.proxy\.credential, web-search-brave\.proxy\.credential$/m)
      assert.match(human.stdout, /^DSH_REDIS_URL +store +<redacted> +named by state-redis\.urlCredential$/m)
      assert.match(human.stdout, /^OLD_KEY +store +<redacted> +named by no row$/m)
      for (const output of [listed.stdout, listed.stderr, human.stdout, human.stderr]) assert.doesNotMatch(output, /secret/)
    } finally {
      await rm(own, { recursive: true, force: true })
    }
  })

  it('a misspelled preset is a usage error: exit 2, the nearest name suggested, USAGE in --json', async () => {
    for (const command of [['tools'], ['compose'], ['doctor'], ['mcp', 'token', 'list']]) {
      const result = await dsh([...command, '--preset', 'standrd'], { home })
      assert.equal(result.code, 2, `${command.join(' ')}: ${result.stderr}`)
      assert.match(result.stderr, /There is no preset "standrd" \(did you mean standard\?\): --preset takes the name of a shipped preset \(minimal, provenance, ptc, render, standard, web\)/)
    }
    const far = await dsh(['tools', '--json', '--preset', 'nothing-like-it'], { home })
    assert.equal(far.code, 2)
    const document = JSON.parse(far.stdout)
    assert.equal(document.error.code, 'USAGE')
    assert.doesNotMatch(document.error.message, /did you mean/)
  })

  it('sends errors to stderr with a non-zero exit and nothing on stdout', async () => {
    const unknown = await dsh(['frobnicate'], { home })
    assert.equal(unknown.code, 2)
    assert.equal(unknown.stdout, '')
    assert.match(unknown.stderr, /unknown command 'frobnicate'/)
    const badOverlay = join(home, 'bad.cordis.yml')
    await writeFile(badOverlay, '- id: web\n  config: { nope: 1 }\n')
    const bad = await dsh(['compose', '--config', badOverlay], { home })
    assert.equal(bad.code, 1)
    assert.equal(bad.stdout, '')
    assert.match(bad.stderr, new RegExp(`${badOverlay}: row "web" \\(dsh-web\\): key "nope"`))
    // With --json, the error is the one document on stdout (issue 13).
    const badJson = await dsh(['compose', '--json', '--config', badOverlay], { home })
    assert.equal(badJson.code, 1)
    assert.match(JSON.parse(badJson.stdout).error.message, new RegExp(`${badOverlay}: row "web" \\(dsh-web\\): key "nope"`))
    const secretInArgv = await dsh(['credentials', 'set', 'A', 'value-in-argv'], { home })
    assert.equal(secretInArgv.code, 2)
    assert.match(secretInArgv.stderr, /read from stdin, never from arguments/)
  })

  it('warns on stderr, for every command that boots, when an overlay replaces a row\'s config and drops a value; dsh compose says where each value came from', async () => {
    const oneKey = join(home, 'one-key.cordis.yml')
    await writeFile(oneKey, '- id: tool-web\n  config: { searchMaxQueries: 2 }\n')
    const warning = `${oneKey} replaces the config of row "tool-web" whole; keys it does not mention change: ` +
      `fetch true (from ${join(ROOT, 'packages/harness/config/presets/standard.cordis.yml')}) -> false (plugin default), ` +
      `searchTimeoutMs 60000 (from ${join(ROOT, 'packages/harness/config/presets/standard.cordis.yml')}) -> 30000 (plugin default). Restate them in ${oneKey} to keep them.`
    const composed = await dsh(['compose', '--json', '--preset', 'standard', '--config', oneKey], { home })
    const dump = onlyJson(composed)
    assert.ok(composed.stderr.split('\n').includes(`dsh: warning: ${warning}`), composed.stderr)
    assert.deepEqual(dump.warnings, [warning])
    const toolWeb = dump.rows.find((row: any) => row.id === 'tool-web')
    assert.equal(toolWeb.configFrom, oneKey)
    assert.equal(toolWeb.configSources.searchMaxQueries, oneKey)
    assert.equal(toolWeb.configSources.fetch, 'plugin default')
    assert.deepEqual(Object.keys(toolWeb.configSources), Object.keys(toolWeb.config))
    const listed = await dsh(['tools', '--json', '--preset', 'standard', '--config', oneKey], { home })
    assert.ok(listed.stderr.split('\n').includes(`dsh: warning: ${warning}`), listed.stderr)
    assert.deepEqual(onlyJson(listed).tools.map((tool: any) => tool.name), ['web_search'])
    const human = await dsh(['compose', '--preset', 'standard', '--config', oneKey], { home })
    assert.ok(human.stdout.split('\n').some((line) => /^ +searchMaxQueries: 2 +<- /.test(line) && line.endsWith(`<- ${oneKey}`)), human.stdout)
    assert.ok(human.stdout.split('\n').some((line) => /^ +fetch: false +<- plugin default$/.test(line)), human.stdout)
  })

  it('dsh compose --json gives every row configSources: what the base states comes from base.cordis.yml, the rest are plugin defaults', async () => {
    const dump = onlyJson(await dsh(['compose', '--json'], { home }))
    assert.deepEqual(dump.warnings, [])
    const base = join(ROOT, 'packages/harness/config/base.cordis.yml')
    const stated: Record<string, string[]> = { web: ['searchProvider', 'fetchProvider'], 'tool-web': ['fetch', 'searchTimeoutMs', 'provenance'] }
    for (const row of dump.rows) {
      assert.deepEqual(Object.keys(row.configSources), Object.keys(row.config), row.id)
      for (const [key, source] of Object.entries(row.configSources)) {
        assert.equal(source, stated[row.id]?.includes(key) ? base : 'plugin default', `${row.id}.${key}`)
      }
    }
  })

  it('keeps what plugins print with console.log off stdout, so --json stays one document', async () => {
    const noisy = join(home, 'noisy.cordis.yml')
    await writeFile(noisy, `- id: noisy\n  name: dsh-test-plugins/noisy\n- id: echo\n  name: dsh-test-plugins/echo-tool\n`)
    const dump = await dsh(['compose', '--json', '--config', noisy], { home })
    assert.ok(JSON.parse(dump.stdout).rows.some((row: any) => row.id === 'noisy'))
    assert.match(dump.stderr, /noisy plugin says hi/)
    const called = await dsh(['call', 'echo', '{"text":"quiet"}', '--json', '--config', noisy], { home })
    assert.equal(JSON.parse(called.stdout).content, 'echo: quiet')
    assert.match(called.stderr, /noisy pre-execute/)
  })
})
