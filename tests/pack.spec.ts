// The packages as they would be published: `pnpm pack` of every workspace
// package, installed with npm into empty folders, offline (nothing but the
// tarballs and what this machine already holds, served from loopback).
// - dsh-tool-web with the contract and the seam pulls neither the MCP SDK, nor
//   QuickJS, nor TypeScript, nor dsh-harness.
// - dsh-harness alone (the services, the loader, the CLI) pulls neither the MCP
//   SDK, nor QuickJS, nor TypeScript: they come with dsh-mcp and dsh-run-code.
// - `npm install -g dsh-cli` gives a `dsh` that runs from any folder with the
//   base and presets shipped inside dsh-harness: `dsh tools`, an MCP
//   `tools/list` over stdio, a config folder of one's own, a plugin installed
//   globally beside it, doctor's Node check.
// - The README's `npm install -g ./packages/cli` links the clone's dsh.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { collectOutput, LOOPBACK_ONLY, type RunResult } from './helpers.js'
import { type LoopbackRegistry, startLoopbackRegistry } from './support/loopback-registry.js'
import { npmEnv, packFolders } from './support/packed.js'

const run = promisify(execFile)
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The tarballs of every workspace package, and of the test plugins (a plugin
 * of one's own), by name.
 */
async function packAll(destination: string): Promise<Map<string, string>> {
  const folders = (await readdir(join(root, 'packages'))).map((folder) => `packages/${folder}`).filter((folder) => existsSync(join(root, folder, 'package.json')))
  return packFolders(root, [...folders, 'tests/plugins'], destination)
}

/** Every package folder anywhere under node_modules (nested ones too), scoped ones as `@scope/name`. */
async function installedAnywhere(modules: string): Promise<Set<string>> {
  const names = new Set<string>()
  if (!existsSync(modules)) return names
  for (const entry of await readdir(modules)) {
    if (entry.startsWith('.')) continue
    const packages = entry.startsWith('@') ? (await readdir(join(modules, entry))).map((scoped) => `${entry}/${scoped}`) : [entry]
    for (const name of packages) {
      names.add(name)
      for (const nested of await installedAnywhere(join(modules, name, 'node_modules'))) names.add(nested)
    }
  }
  return names
}

/** Every package folder under node_modules, scoped ones as `@scope/name`. */
async function installed(app: string): Promise<string[]> {
  const modules = join(app, 'node_modules')
  const names: string[] = []
  for (const entry of await readdir(modules)) {
    if (entry.startsWith('.')) continue
    if (entry.startsWith('@')) for (const scoped of await readdir(join(modules, entry))) names.push(`${entry}/${scoped}`)
    else names.push(entry)
  }
  return names.sort()
}


let work: string
let tarballs: Map<string, string>
before(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'dsh-pack-')))
  await mkdir(join(work, 'tarballs'))
  await writeFile(join(work, 'npmrc'), '')
  await writeFile(join(work, 'npmrc-global'), '')
  tarballs = await packAll(join(work, 'tarballs'))
})
after(async () => {
  await rm(work, { recursive: true, force: true })
})

describe('dsh-tool-web installed alone', () => {
  let app: string
  before(async () => {
    app = join(work, 'tool-web-app')
    await mkdir(app)
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
    // cordis is a peer: the harness that mounts the plugins brings it. Left out here, so that what is
    // listed below is exactly what the three packages themselves pull in. The registry is a closed
    // loopback port: a request npm tried anyway would go nowhere.
    const files = ['dsh-host', 'dsh-web', 'dsh-tool-web'].map((name) => tarballs.get(name)!)
    await run('npm', ['install', '--offline', '--legacy-peer-deps', ...files], { cwd: app, env: npmEnv(work, 'http://127.0.0.1:9/') })
  })

  it('pulls in only the contract and the seam', async () => {
    assert.deepEqual(await installed(app), ['dsh-host', 'dsh-tool-web', 'dsh-web'])
  })

  it('lists no host, MCP SDK, QuickJS or TypeScript among the dependencies of what it installed', async () => {
    for (const name of ['dsh-host', 'dsh-web', 'dsh-tool-web']) {
      const manifest = JSON.parse(await readFile(join(app, 'node_modules', name, 'package.json'), 'utf8'))
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })
      for (const heavy of ['dsh-harness', '@modelcontextprotocol/sdk', 'quickjs-emscripten', 'typescript']) {
        assert.ok(!deps.includes(heavy), `${name} depends on ${heavy}`)
      }
      assert.ok(!JSON.stringify(manifest).includes('workspace:'), `${name}'s packed manifest has no workspace: ranges`)
    }
    assert.ok(!existsSync(join(app, 'node_modules', '@modelcontextprotocol')))
  })

  it('ships its built code', async () => {
    for (const name of ['dsh-host', 'dsh-web', 'dsh-tool-web']) {
      assert.ok(existsSync(join(app, 'node_modules', name, 'dist', 'index.js')), `${name}/dist/index.js`)
    }
  })
})

describe('dsh-harness installed alone', () => {
  let registry: LoopbackRegistry
  let app: string
  let found: Set<string>
  before(async () => {
    // Its own dependencies (yaml, ajv, commander, cordis as a peer) come from what this machine holds, served from loopback.
    registry = await startLoopbackRegistry({ tarballs: [...tarballs.values()], store: join(root, 'node_modules', '.pnpm') })
    app = join(work, 'harness-app')
    await mkdir(app)
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
    await run('npm', ['install', 'dsh-harness'], { cwd: app, env: npmEnv(work, registry.url), maxBuffer: 16 << 20 })
    found = await installedAnywhere(join(app, 'node_modules'))
  })
  after(async () => {
    await registry?.close()
  })

  it('pulls neither the MCP SDK, nor QuickJS, nor TypeScript (was: all three, with dsh mcp and run_code inside the host)', () => {
    assert.ok(found.has('dsh-harness') && found.has('dsh-host') && found.has('cordis'), [...found].join(', '))
    for (const heavy of ['@modelcontextprotocol/sdk', 'quickjs-emscripten', 'typescript', 'ts-blank-space', 'dsh-mcp', 'dsh-run-code']) {
      assert.ok(!found.has(heavy), `npm install dsh-harness installed ${heavy}`)
    }
  })

  it('its own bin runs, and says which package has dsh mcp', async () => {
    const bin = join(app, 'node_modules', '.bin', 'dsh')
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== undefined)), ...LOOPBACK_ONLY, DSH_HOME: join(work, 'harness-home'), PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) } as Record<string, string>
    const version = await collectOutput(spawn(bin, ['--version'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] }))
    assert.equal(version.code, 0, version.stderr)
    const mcp = await collectOutput(spawn(bin, ['mcp', '--preset', 'standard'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] }))
    assert.equal(mcp.code, 2)
    assert.match(mcp.stderr, /dsh mcp comes with the package dsh-mcp, .*install dsh-cli/)
  })
})

describe('dsh-cli installed with npm install -g from its one tarball (scripts/pack-cli.mjs), with no registry', () => {
  let registry: LoopbackRegistry
  let prefix: string
  let bin: string
  let harness: string
  let empty: string
  let home: string
  let installSeconds: number
  let bundle: string
  let bundleLine: string
  // The installed bin runs under this Node (its shebang is `/usr/bin/env node`), from an empty folder, providers on loopback.
  let env: Record<string, string>

  before(async () => {
    registry = await startLoopbackRegistry({ tarballs: [...tarballs.values()], store: join(root, 'node_modules', '.pnpm') })
    prefix = join(work, 'prefix')
    empty = join(work, 'empty')
    home = join(work, 'home')
    await mkdir(empty)
    await mkdir(home, { mode: 0o700 })
    // The one tarball, made from the packed workspace packages, its third-party packages from the loopback registry.
    const { stdout } = await run(process.execPath, [join(root, 'scripts', 'pack-cli.mjs'), '--from', join(work, 'tarballs'), '--out', join(work, 'bundle')], { cwd: root, env: npmEnv(work, registry.url), maxBuffer: 16 << 20 })
    bundle = join(work, 'bundle', 'dsh-cli-0.1.0.tgz')
    bundleLine = stdout.trim()
    // Installed with npm pointed at a closed port, offline: nothing may come from anywhere but the tarball.
    const started = Date.now()
    await run('npm', ['install', '--global', '--offline', '--prefix', prefix, bundle], { cwd: empty, env: npmEnv(join(work, 'bundle-npm'), 'http://127.0.0.1:9/'), maxBuffer: 16 << 20 })
    installSeconds = (Date.now() - started) / 1000
    bin = join(prefix, 'bin', 'dsh')
    harness = join(prefix, 'lib', 'node_modules', 'dsh-cli', 'node_modules', 'dsh-harness')
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key, value]) => value !== undefined && key !== 'DSH_CONFIG_DIR')) as Record<string, string>
    env = Object.fromEntries(
      Object.entries({ ...inherited, ...LOOPBACK_ONLY, DSH_HOME: home, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) }).filter(([, value]) => value !== undefined),
    ) as Record<string, string>
  })
  after(async () => {
    await registry?.close()
  })

  function dsh(args: string[], extra: Record<string, string> = {}): Promise<RunResult> {
    return collectOutput(spawn(bin, args, { cwd: empty, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] }))
  }

  function json(result: RunResult): any {
    assert.equal(result.code, 0, `dsh exited ${result.code}: ${result.stderr}`)
    return JSON.parse(result.stdout)
  }

  it('installs from the one tarball alone: every workspace package inside it, nothing fetched', async (t) => {
    t.diagnostic(`${bundleLine}; npm install -g of it: ${installSeconds.toFixed(1)} s`)
    const listed = await readdir(join(prefix, 'lib', 'node_modules', 'dsh-cli', 'node_modules'))
    for (const name of tarballs.keys()) {
      if (name === 'dsh-test-plugins' || name === 'dsh-cli') continue
      assert.ok(listed.includes(name), `${name} is inside the installed dsh-cli`)
    }
    // The making of the tarball asked the loopback registry only for third-party packages (and optional platform builds it lacks).
    const optional = registry.optionalNames()
    for (const name of registry.missing) assert.ok(optional.has(name), `npm asked for ${name}, which no package lists as optional`)
    for (const downloaded of registry.downloaded) assert.ok(!downloaded.startsWith('dsh-'), `${downloaded} came from the registry, not from its packed tarball`)
    assert.equal(await realpath(bin), join(prefix, 'lib', 'node_modules', 'dsh-cli', 'dist', 'dsh.js'))
    const packed = JSON.parse(await readFile(join(harness, 'package.json'), 'utf8'))
    assert.ok(!JSON.stringify(packed).includes('workspace:'), "dsh-harness's packed manifest has no workspace: ranges")
  })

  it('runs dsh tools from an empty folder with the base shipped inside the installed dsh-harness', async () => {
    const tools = json(await dsh(['tools', '--json']))
    assert.deepEqual(tools.tools.map((tool: any) => tool.name), ['web_search'])
    // The ptc preset's run-code row resolves to dsh-run-code, installed beside dsh-harness.
    const ptc = json(await dsh(['tools', '--json', '--preset', 'ptc']))
    assert.deepEqual(ptc.tools.map((tool: any) => tool.name), ['run_code'])
    const composition = json(await dsh(['compose', '--json', '--preset', 'standard']))
    assert.deepEqual(composition.layers, [join(harness, 'config', 'base.cordis.yml'), join(harness, 'config', 'presets', 'standard.cordis.yml')])
    assert.deepEqual(
      composition.rows.filter((row: any) => row.status !== 'mounted').map((row: any) => `${row.id}: ${row.status} ${row.error ?? ''}`),
      [],
    )
  })

  it('names every shipped overlay without a path from an empty folder, and dsh docs config documents the optional providers they mount', async () => {
    const mounts: Record<string, string> = { 'anthropic-search': 'web-search-anthropic', 'gemini-search': 'web-search-gemini', 'brave-search': 'web-search-brave', 'openai-search': 'web-search-openai', 'searxng-search': 'web-search-searxng', 'redis-state': 'cache-redis', 'tavily-search': 'web-search-tavily', 'exa-search': 'web-search-exa', 'perplexity-search': 'web-search-perplexity' }
    for (const [overlay, row] of Object.entries(mounts)) {
      const composition = json(await dsh(['compose', '--json', '--config', overlay]))
      assert.equal(composition.layers.at(-1), join(harness, 'config', 'overlays', `${overlay}.cordis.yml`))
      assert.ok(composition.rows.some((entry: any) => entry.id === row), `${overlay} mounts ${row}`)
    }
    const reference = await dsh(['docs', 'config'])
    assert.equal(reference.code, 0, reference.stderr)
    for (const name of ['dsh-web-search-anthropic', 'dsh-web-search-gemini', 'dsh-web-search-brave', 'dsh-web-search-openai', 'dsh-web-search-searxng', 'dsh-cache-redis', 'dsh-web-search-tavily', 'dsh-web-search-exa', 'dsh-web-search-perplexity']) assert.match(reference.stdout, new RegExp(`## ${name}\\n`))
  })

  it('serves the tools over MCP on stdio: tools/list from the installed bin', async () => {
    const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--preset', 'standard'], cwd: empty, env, stderr: 'pipe' })
    const client = new Client({ name: 'dsh-pack-test', version: '0.0.0' })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['web_fetch', 'web_search'])
      const mcp = join(prefix, 'lib', 'node_modules', 'dsh-cli', 'node_modules', 'dsh-mcp')
      assert.deepEqual(client.getServerVersion(), { name: 'dsh', version: JSON.parse(await readFile(join(mcp, 'package.json'), 'utf8')).version })
    } finally {
      await client.close()
    }
  })

  it("mounts the installed plugins from a config folder of one's own ($DSH_CONFIG_DIR), and --config-dir wins over it", async () => {
    const own = join(work, 'own-config')
    await mkdir(own)
    await writeFile(
      join(own, 'base.cordis.yml'),
      '- id: tools\n  name: dsh-harness/tools\n- id: web\n  name: dsh-web\n- id: web-fetch-http\n  name: dsh-web-fetch-http\n- id: tool-web\n  name: dsh-tool-web\n  config: { search: false, fetch: true }\n',
    )
    const tools = json(await dsh(['tools', '--json'], { DSH_CONFIG_DIR: own }))
    assert.deepEqual(tools.tools.map((tool: any) => tool.name), ['web_fetch'])
    const shipped = json(await dsh(['tools', '--json', '--config-dir', join(harness, 'config')], { DSH_CONFIG_DIR: own }))
    assert.deepEqual(shipped.tools.map((tool: any) => tool.name), ['web_search'])
  })

  it('mounts a plugin installed with npm install -g beside the global dsh, as the message for a missing package says', async () => {
    const overlay = join(work, 'echo.cordis.yml')
    await writeFile(overlay, '- id: echo\n  name: dsh-test-plugins/echo-tool\n')
    const before = await dsh(['tools', '--json', '--config', overlay])
    assert.equal(before.code, 1)
    // With --json the error is the one document on stdout.
    assert.match(JSON.parse(before.stdout).error.message, /the package "dsh-test-plugins\/echo-tool" is not installed .*npm install -g beside a global dsh/)
    await run('npm', ['install', '--global', '--prefix', prefix, 'dsh-test-plugins'], { cwd: empty, env: npmEnv(work, registry.url), maxBuffer: 16 << 20 })
    const called = json(await dsh(['call', 'echo', '{"text":"from a global plugin"}', '--json', '--config', overlay]))
    assert.equal(called.content, 'echo: from a global plugin', JSON.stringify(called))
  })

  it("checks this Node against the installed dsh-harness's engines.node in dsh doctor", async () => {
    const result = await dsh(['doctor', '--json'])
    const node = JSON.parse(result.stdout).checks.find((check: any) => check.id === 'node')
    const range = JSON.parse(await readFile(join(harness, 'package.json'), 'utf8')).engines.node
    assert.deepEqual(node, { id: 'node', status: 'ok', message: `Node ${process.versions.node} satisfies engines.node ${range}` })
  })
})

describe("the README's npm install -g ./packages/cli", () => {
  it('links the clone\'s dsh-cli without a registry, and the linked dsh runs from an empty folder', async () => {
    const prefix = join(work, 'linked-prefix')
    const empty = join(work, 'linked-empty')
    const home = join(work, 'linked-home')
    await mkdir(empty)
    await mkdir(home, { mode: 0o700 })
    await run('npm', ['install', '--global', '--offline', '--prefix', prefix, join(root, 'packages', 'cli')], { cwd: empty, env: npmEnv(work, 'http://127.0.0.1:9/') })
    const bin = join(prefix, 'bin', 'dsh')
    assert.equal(await realpath(bin), join(root, 'packages', 'cli', 'dist', 'dsh.js'))
    const { stdout } = await run(bin, ['tools', '--json'], {
      cwd: empty,
      env: { ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home, DSH_CONFIG_DIR: '', PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) },
    })
    assert.deepEqual(JSON.parse(stdout).tools.map((tool: any) => tool.name), ['web_search'])
  })
})
