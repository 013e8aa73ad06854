import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { compose, CompositionError, shippedConfigDir } from 'dsh-harness'

const CONFIG_DIR = shippedConfigDir()

describe('composition loader', () => {
  let dir: string
  let home: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dsh-compose-'))
    home = await mkdtemp(join(tmpdir(), 'dsh-compose-home-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
    await rm(home, { recursive: true, force: true })
  })

  async function overlay(name: string, text: string) {
    const file = join(dir, name)
    await writeFile(file, text)
    return file
  }

  async function composeError(overlays: string[]): Promise<CompositionError> {
    const error = await compose({ configDir: CONFIG_DIR, home, overlays }).then(() => undefined, (error) => error)
    assert.ok(error instanceof CompositionError, `expected a CompositionError, got ${error}`)
    return error
  }

  it('layers personal and --config overlays: replaces a config, disables a row, adds a row', async () => {
    await writeFile(join(home, 'cordis.yml'), `- id: web\n  config: { searchProvider: openai-official }\n`)
    const file = await overlay('layered.cordis.yml', [
      '- id: credentials',
      '  disabled: true',
      '- id: echo',
      `  name: dsh-test-plugins/echo-tool`,
      '  config: { prefix: layered }',
    ].join('\n'))
    const composition = await compose({ configDir: CONFIG_DIR, home, overlays: [file] })
    try {
      const rows = Object.fromEntries(composition.rows().map((row) => [row.id, row]))
      // The personal overlay replaced web's config as a whole: fetchProvider is gone (the seam has no default; dsh compose warns).
      const { searchProvider, fetchProvider, memoryMaxBytes } = rows.web.config as Record<string, unknown>
      assert.deepEqual({ searchProvider, fetchProvider, memoryMaxBytes }, { searchProvider: 'openai-official', fetchProvider: undefined, memoryMaxBytes: 50 * 1024 * 1024 })
      assert.equal(rows.web.configFrom, join(home, 'cordis.yml'))
      assert.equal(rows.credentials.status, 'disabled')
      assert.equal(composition.ctx.get('credentials'), undefined)
      assert.equal(rows.echo.status, 'mounted')
      assert.deepEqual(rows.echo.config, { prefix: 'layered', effects: [] })
      assert.deepEqual(composition.layers, [join(CONFIG_DIR, 'base.cordis.yml'), join(home, 'cordis.yml'), file])
      const outcome = await composition.ctx.get('tools')!.invoke('echo', { text: 'x' })
      assert.equal(outcome.content, 'layered: x')
    } finally {
      await composition.dispose()
      await rm(join(home, 'cordis.yml'))
    }
  })

  it('names file and row for a package that is not installed', async () => {
    const file = await overlay('missing.cordis.yml', '- id: ghost\n  name: dsh-no-such-package\n')
    const error = await composeError([file])
    assert.match(error.message, new RegExp(`^${file}: row "ghost": the package "dsh-no-such-package" is not installed`))
  })

  it('names file and row for a duplicate id within a file', async () => {
    const file = await overlay('duplicate.cordis.yml', '- id: echo\n  name: dsh-web\n- id: echo\n  name: dsh-web\n')
    assert.match((await composeError([file])).message, new RegExp(`^${file}: row "echo": the id appears twice`))
  })

  it('names file, row and key for a config key the plugin does not know', async () => {
    const file = await overlay('bad-key.cordis.yml', '- id: web\n  config: { searchProvider: x, serchProvider: y }\n')
    const message = (await composeError([file])).message
    assert.match(message, new RegExp(`^${file}: row "web" \\(dsh-web\\): key "serchProvider" is not a config key`))
    assert.match(message, /known: searchProvider, fetchProvider/)
  })

  it('names file, row and key for a value of the wrong type', async () => {
    const file = await overlay('bad-type.cordis.yml', '- id: web\n  config: { searchProvider: 42 }\n')
    assert.match((await composeError([file])).message, new RegExp(`^${file}: row "web" \\(dsh-web\\): key searchProvider expected string`))
  })

  it('refuses YAML tags and __jsExpr values: composition files are data', async () => {
    const tagged = await overlay('tag.cordis.yml', '- id: web\n  config:\n    searchProvider: !!js/function "function () { return 1 }"\n')
    assert.match((await composeError([tagged])).message, new RegExp(`^${tagged}:3: row "web": the YAML tag !!js/function is not allowed`))
    const expression = await overlay('expr.cordis.yml', '- id: web\n  config:\n    searchProvider: { __jsExpr: "process.exit(1)" }\n')
    assert.match((await composeError([expression])).message, new RegExp(`^${expression}: row "web": "config.searchProvider.__jsExpr" is a __jsExpr value`))
  })

  it('needs a name for a new row and refuses unknown row keys', async () => {
    const nameless = await overlay('nameless.cordis.yml', '- id: brand-new\n  config: {}\n')
    assert.match((await composeError([nameless])).message, /row "brand-new": no earlier layer has a row with this id, so a new row needs "name"/)
    const extra = await overlay('extra.cordis.yml', '- id: web\n  enabled: false\n')
    assert.match((await composeError([extra])).message, /row "web": unknown key "enabled"/)
  })

  describe('composition files are data, and so is where they live', () => {
    it('refuses a row whose name is a file path, relative or absolute, without running the file', async () => {
      const marker = join(dir, 'ran.txt')
      const script = join(dir, 'payload.mjs')
      await writeFile(script, `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(marker)}, 'ran')\nexport function apply() {}\n`)
      for (const name of ['./payload.mjs', script, '../payload.mjs', 'dsh-test-plugins/../../payload']) {
        const file = await overlay('path-row.cordis.yml', `- id: payload\n  name: ${JSON.stringify(name)}\n`)
        const error = await composeError([file])
        assert.match(error.message, /is not a package name/, name)
        assert.match(error.message, new RegExp(`^${file}: row "payload"`))
      }
      assert.equal(existsSync(marker), false, 'the file was never imported')
    })

    it('never imports a disabled row', async () => {
      const before = (globalThis as any).__dshImportMarker ?? 0
      const file = await overlay('disabled-row.cordis.yml', '- id: marker\n  name: dsh-test-plugins/import-marker\n  disabled: true\n')
      const composition = await compose({ configDir: CONFIG_DIR, home, overlays: [file] })
      try {
        assert.equal((globalThis as any).__dshImportMarker ?? 0, before)
        assert.deepEqual(composition.rows().find((row) => row.id === 'marker'), { id: 'marker', name: 'dsh-test-plugins/import-marker', status: 'disabled', config: null, configFrom: file, nameFrom: file, configSources: {} })
      } finally {
        await composition.dispose()
      }
      const enabled = await overlay('enabled-row.cordis.yml', '- id: marker\n  name: dsh-test-plugins/import-marker\n')
      const mounted = await compose({ configDir: CONFIG_DIR, home, overlays: [enabled] })
      await mounted.dispose()
      assert.equal((globalThis as any).__dshImportMarker, before + 1, 'the same row enabled is imported: the marker works')
    })

    it('refuses a --config that is a FIFO, a folder or missing, at once', async () => {
      const fifo = join(dir, 'pipe.cordis.yml')
      execFileSync('mkfifo', [fifo])
      assert.match((await composeError([fifo])).message, /pipe\.cordis\.yml is a FIFO; a composition file must be a regular file/)
      assert.match((await composeError([dir])).message, /is a folder; a composition file must be a regular file/)
      assert.match((await composeError([join(dir, 'no-such-file.cordis.yml')])).message, /cannot read the composition file \(ENOENT\)/)
    })

    it('takes only the name of a shipped preset', async () => {
      for (const preset of ['../../x', '../base', '/etc/passwd', 'standard.cordis.yml']) {
        const error = await compose({ configDir: CONFIG_DIR, home, preset }).then(() => undefined, (error) => error)
        assert.ok(error instanceof CompositionError, preset)
        assert.match(error.message, /--preset takes the name of a shipped preset \(minimal, provenance, ptc, render, standard, web\)/)
      }
    })

    it('refuses a personal overlay, or a home, that another user can write, with the fix', async () => {
      const shared = await mkdtemp(join(tmpdir(), 'dsh-compose-shared-'))
      try {
        await writeFile(join(shared, 'cordis.yml'), '- id: web\n  config: { searchProvider: openai-official }\n', { mode: 0o600 })
        await chmod(shared, 0o777)
        const open = await compose({ configDir: CONFIG_DIR, home: shared }).then(() => undefined, (error) => error)
        assert.ok(open instanceof CompositionError)
        assert.match(open.message, /is writable by group and others \(mode 0777\).*Fix: chmod 700/)
        await chmod(shared, 0o700)
        await chmod(join(shared, 'cordis.yml'), 0o666)
        const writable = await compose({ configDir: CONFIG_DIR, home: shared }).then(() => undefined, (error) => error)
        assert.ok(writable instanceof CompositionError)
        assert.match(writable.message, /The personal overlay .*cordis\.yml is writable by group and others.*Fix: chmod 600/)
        await chmod(join(shared, 'cordis.yml'), 0o600)
        const fine = await compose({ configDir: CONFIG_DIR, home: shared })
        assert.equal(fine.rows().find((row) => row.id === 'web')?.configFrom, join(shared, 'cordis.yml'))
        await fine.dispose()
      } finally {
        await rm(shared, { recursive: true, force: true })
      }
    })
  })

  it('shows the proxy each row with a proxy section takes, credentials hidden, and warns when a row overrides a set proxy variable', async () => {
    // This test's own proxy environment, whatever the machine's is: every name undici reads, lower case first.
    const names = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY']
    const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]))
    for (const name of names) delete process.env[name]
    process.env.HTTPS_PROXY = 'http://user:hunter2@127.0.0.1:3128'
    process.env.NO_PROXY = 'localhost'
    try {
      const file = await overlay('row-proxy.cordis.yml', '- id: web-fetch-http\n  config:\n    proxy: { url: "http://127.0.0.1:8080" }\n')
      const composition = await compose({ configDir: CONFIG_DIR, home, overlays: [file] })
      try {
        const rows = composition.rows()
        assert.deepEqual(rows.find((row) => row.id === 'web-search-deepseek')?.proxy, {
          http: null,
          https: { proxy: 'http://<credentials>@127.0.0.1:3128', from: 'HTTPS_PROXY' },
          noProxy: { value: 'localhost', from: 'NO_PROXY' },
        })
        assert.deepEqual(rows.find((row) => row.id === 'web-fetch-http')?.proxy, {
          http: { proxy: 'http://127.0.0.1:8080', from: 'proxy.url' },
          https: { proxy: 'http://127.0.0.1:8080', from: 'proxy.url' },
          noProxy: { value: 'localhost', from: 'NO_PROXY' },
        })
        assert.equal(rows.find((row) => row.id === 'tools')?.proxy, undefined, 'a row without a proxy section shows none')
        const proxyWarnings = composition.warnings.filter((warning) => warning.includes('proxy'))
        assert.deepEqual(proxyWarnings, [
          'HTTPS_PROXY is set (http://<credentials>@127.0.0.1:3128) but row "web-fetch-http" does not use it: its proxy.url http://127.0.0.1:8080 overrides it. Remove the row\'s setting to use the environment, or unset HTTPS_PROXY if nothing should use it.',
        ])
        assert.ok(!JSON.stringify({ rows, warnings: composition.warnings }).includes('hunter2'), 'the proxy password is shown nowhere')
      } finally {
        await composition.dispose()
      }
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key]
        else process.env[key] = value
      }
    }
  })

  it('names the presets when the preset does not exist', async () => {
    const error = await compose({ configDir: CONFIG_DIR, home, preset: 'nope' }).then(() => undefined, (error) => error)
    assert.match(String(error?.message), /There is no preset "nope": --preset takes the name of a shipped preset \(.*minimal.*standard.*\)/)
  })

  it('reports dsh-tool-web as pending, naming the service, when no row provides tools', async () => {
    const file = await overlay('no-tools.cordis.yml', `- id: tools\n  disabled: true\n`)
    const composition = await compose({ configDir: CONFIG_DIR, home, overlays: [file] })
    try {
      const row = composition.rows().find((candidate) => candidate.name === 'dsh-tool-web')
      assert.equal(row?.status, 'pending')
      assert.deepEqual(row?.waitingFor, ['tools'])
      assert.ok(composition.problems().some((problem) => /\(dsh-tool-web\) is pending: it waits for the service\(s\) tools/.test(problem)), composition.problems().join('\n'))
    } finally {
      await composition.dispose()
    }
  })

  it('reports a row that waits on a service that never arrives, and one that fails', async () => {
    const file = await overlay('waiting.cordis.yml', `- id: waiter\n  name: dsh-test-plugins/waits-forever\n- id: broken\n  name: dsh-test-plugins/fails-on-start\n`)
    const composition = await compose({ configDir: CONFIG_DIR, home, overlays: [file] })
    try {
      const rows = Object.fromEntries(composition.rows().map((row) => [row.id, row]))
      assert.equal(rows.waiter.status, 'pending')
      assert.deepEqual(rows.waiter.waitingFor, ['never-provided'])
      assert.equal(rows.broken.status, 'failed')
      const problems = composition.problems()
      assert.ok(problems.some((problem) => /row "waiter" .* is pending: it waits for the service\(s\) never-provided/.test(problem)), problems.join('\n'))
      assert.ok(problems.some((problem) => /row "broken" .* failed to start: this plugin always fails/.test(problem)), problems.join('\n'))
    } finally {
      await composition.dispose()
    }
  })

  it('waits for a service that arrives from work Cordis does not track, by status events rather than a count of rounds', async () => {
    // The provider sets "late" from a 30 ms timer: after Cordis's own start work is done, before the wait's deadline.
    const file = await overlay('late.cordis.yml', `- id: needs-late\n  name: dsh-test-plugins/needs-late-service\n- id: late\n  name: dsh-test-plugins/late-service\n`)
    const composition = await compose({ configDir: CONFIG_DIR, home, overlays: [file], serviceWaitMs: 10_000 })
    try {
      const rows = Object.fromEntries(composition.rows().map((row) => [row.id, row]))
      assert.equal(rows['needs-late'].status, 'mounted', composition.problems().join('\n'))
      assert.deepEqual(composition.problems(), [])
    } finally {
      await composition.dispose()
    }
  })

  it('reports a row whose start never finishes at the start deadline, and mounts the others', { timeout: 20_000 }, async () => {
    const file = await overlay('never.cordis.yml', `- id: stuck\n  name: dsh-test-plugins/never-starts\n`)
    const composition = await compose({ configDir: CONFIG_DIR, home, overlays: [file], startTimeoutMs: 300 })
    try {
      const rows = Object.fromEntries(composition.rows().map((row) => [row.id, row]))
      assert.equal(rows.stuck.status, 'starting')
      assert.equal(rows.tools.status, 'mounted')
      assert.ok(composition.ctx.get('tools'))
      assert.deepEqual(composition.problems(), [`row "stuck" (dsh-test-plugins/never-starts) is still starting after 300 ms: its apply or a ready hook has not finished`])
    } finally {
      await composition.dispose()
    }
  })

  it('warns when a one-key overlay of tool-web silently turns fetch back off and resets the search deadline', async () => {
    const earlier = await overlay('deadline.cordis.yml', '- id: tool-web\n  config: { fetch: true, searchTimeoutMs: 90000 }\n')
    const oneKey = await overlay('one-key.cordis.yml', '- id: tool-web\n  config: { searchMaxQueries: 2 }\n')
    const composition = await compose({ configDir: CONFIG_DIR, home, preset: 'standard', overlays: [earlier, oneKey] })
    try {
      // The replacement itself stands (a row's config is replaced whole): only now it is said out loud.
      const toolWeb = composition.rows().find((row) => row.id === 'tool-web')!
      assert.equal((toolWeb.config as any).fetch, false)
      assert.equal((toolWeb.config as any).searchTimeoutMs, 30_000)
      // The earlier overlay restated fetch, so the values lost are the ones it set.
      assert.deepEqual(composition.warnings, [
        `${oneKey} replaces the config of row "tool-web" whole; keys it does not mention change: ` +
          `fetch true (from ${earlier}) -> false (plugin default), searchTimeoutMs 90000 (from ${earlier}) -> 30000 (plugin default). ` +
          `Restate them in ${oneKey} to keep them.`,
      ])
    } finally {
      await composition.dispose()
    }
  })

  it('gives no warning when an overlay restates the keys it keeps, or a later layer sets them again', async () => {
    const restating = await overlay('restating.cordis.yml', '- id: tool-web\n  config: { fetch: true, searchTimeoutMs: 60000, searchMaxQueries: 2 }\n')
    const plain = await compose({ configDir: CONFIG_DIR, home, preset: 'standard', overlays: [restating] })
    await plain.dispose()
    assert.deepEqual(plain.warnings, [])
    const oneKey = await overlay('one-key-again.cordis.yml', '- id: tool-web\n  config: { searchMaxQueries: 3 }\n')
    const later = await compose({ configDir: CONFIG_DIR, home, preset: 'standard', overlays: [oneKey, restating] })
    await later.dispose()
    assert.deepEqual(later.warnings, [])
  })

  it('never prints a secret in a replacement warning', async () => {
    const withKey = await overlay('with-key.cordis.yml', '- id: web-search-deepseek\n  config: { apiKey: sk-never-print-this }\n')
    const without = await overlay('without-key.cordis.yml', '- id: web-search-deepseek\n  config: { model: deepseek-other }\n')
    const composition = await compose({ configDir: CONFIG_DIR, home, overlays: [withKey, without] })
    await composition.dispose()
    assert.deepEqual(composition.warnings, [
      `${without} replaces the config of row "web-search-deepseek" whole; keys it does not mention change: apiKey <redacted> (from ${withKey}) -> unset (no plugin default). Restate them in ${without} to keep them.`,
    ])
    assert.ok(!composition.warnings.join('\n').includes('sk-never-print-this'))
  })

  it('says where each resolved value came from: the file that set it or the plugin default', async () => {
    const file = await overlay('sources.cordis.yml', '- id: tool-web\n  config: { fetch: true, searchMaxQueries: 2 }\n')
    const composition = await compose({ configDir: CONFIG_DIR, home, preset: 'ptc', overlays: [file] })
    try {
      const rows = Object.fromEntries(composition.rows().map((row) => [row.id, row]))
      assert.deepEqual(rows['tool-web'].configSources, {
        search: 'plugin default',
        fetch: file,
        searchTimeoutMs: 'plugin default',
        searchMaxQueries: file,
        fetchTimeoutMs: 'plugin default',
        fetchMaxChars: 'plugin default',
        outputThreshold: 'plugin default',
        provenance: 'plugin default',
        provenanceSameOrigin: 'plugin default',
      })
      assert.equal(rows.tools.configSources.mode, join(CONFIG_DIR, 'presets/ptc.cordis.yml'))
      assert.equal(rows['run-code'].configSources.timeoutMs, 'plugin default')
      assert.deepEqual(Object.keys(rows.web.configSources), Object.keys(rows.web.config as object))
    } finally {
      await composition.dispose()
    }
  })

  it('never reads .env files and never changes process.env', async () => {
    const cwd = process.cwd()
    await writeFile(join(dir, '.env'), 'DSH_TEST_FROM_DOTENV=leaked\n')
    const before = JSON.stringify(process.env)
    process.chdir(dir)
    try {
      const composition = await compose({ configDir: CONFIG_DIR, home })
      await composition.dispose()
    } finally {
      process.chdir(cwd)
    }
    assert.equal(process.env.DSH_TEST_FROM_DOTENV, undefined)
    assert.equal(JSON.stringify(process.env), before)
  })

  it('never echoes a secret value in a config error', async () => {
    const file = await overlay('secret.cordis.yml', '- id: web\n  config: { searchProvider: x }\n- id: key-row\n  name: dsh-web-search-deepseek\n  config: { apiKey: 1234567890 }\n')
    const message = (await composeError([file])).message
    assert.match(message, /row "key-row" .*key apiKey expected string \(the value is secret and not shown\)/)
    assert.ok(!message.includes('1234567890'))
  })

  it('names the file that swapped a row\'s package when the old config does not fit it', async () => {
    // The base leaves web's config to the plugin's defaults; an earlier overlay gives it one.
    const configured = await overlay('web-config.cordis.yml', '- id: web\n  config: { searchProvider: deepseek-official }\n')
    const file = await overlay('swap.cordis.yml', '- id: web\n  name: dsh-web-search-openai\n')
    const message = (await composeError([configured, file])).message
    assert.match(message, /row "web" \(dsh-web-search-openai\): key "searchProvider" is not a config key/)
    assert.ok(message.includes(`${file} set the package to dsh-web-search-openai`), message)
  })
})
