// The model-facing tools install without the host: `pnpm pack` of dsh-tool-web
// and of the packages it depends on, installed with npm into an empty folder
// (offline, from the tarballs alone), pulls neither the MCP SDK, nor QuickJS,
// nor TypeScript, nor dsh-harness.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
// Nothing here may reach a registry: npx takes pnpm from its cache (the
// install command put it there), and npm installs offline with its registry
// pointed at a closed loopback port, so a request it tried anyway goes nowhere.
const offline = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }
const closedRegistry = { ...offline, npm_config_registry: 'http://127.0.0.1:9/' }

async function pack(folder: string, destination: string): Promise<string> {
  await run('npx', ['--offline', '-y', 'pnpm@12.4.2', 'pack', '--pack-destination', destination], { cwd: join(root, 'packages', folder), env: offline })
  const tarballs = await readdir(destination)
  const name = JSON.parse(await readFile(join(root, 'packages', folder, 'package.json'), 'utf8')).name as string
  const tarball = tarballs.find((file) => file.startsWith(`${name}-`) && file.endsWith('.tgz'))
  assert.ok(tarball, `pnpm pack wrote ${name}'s tarball`)
  return join(destination, tarball)
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

describe('dsh-tool-web installed alone', () => {
  let work: string
  let app: string
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'dsh-pack-'))
    const tarballs = join(work, 'tarballs')
    app = join(work, 'app')
    await mkdir(tarballs)
    await mkdir(app)
    const files = [await pack('host', tarballs), await pack('web', tarballs), await pack('tool-web', tarballs)]
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
    // cordis is a peer: the harness that mounts the plugins brings it. Left out here, so that what is
    // listed below is exactly what the three packages themselves pull in.
    await run('npm', ['install', '--legacy-peer-deps', ...files], { cwd: app, env: closedRegistry })
  })
  after(async () => {
    await rm(work, { recursive: true, force: true })
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
