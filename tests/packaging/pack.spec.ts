// The packages as they would be published: `pnpm pack` of every workspace
// package, installed with npm into empty folders, offline (nothing but the
// tarballs and what this machine already holds, served from loopback).
// - dsh-tool-web with the contract and the seam pulls neither the MCP SDK, nor
//   QuickJS, nor TypeScript, nor dsh-harness.
// - dsh-harness alone (the services, the loader, the CLI) pulls neither the MCP
//   SDK, nor QuickJS, nor TypeScript: they come with dsh-mcp and dsh-run-code.
// (The one dsh-cli tarball of scripts/pack-cli.mjs is tests/pack-cli.spec.ts.)
// - The README's `npm install -g ./packages/cli` links the clone's dsh.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { delimiter, dirname, join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { collectOutput, LOOPBACK_ONLY } from '../helpers.js'
import { type LoopbackRegistry, startLoopbackRegistry } from '../support/loopback-registry.js'
import { npmEnv, packedWorkspace } from '../support/packed.js'

const run = promisify(execFile)
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

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
  ;({ work, tarballs } = await packedWorkspace(root, 'dsh-pack-'))
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
