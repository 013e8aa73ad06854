// The one dsh-cli tarball of scripts/pack-cli.mjs (every workspace package
// dsh-cli needs, packed as published, bundled with their third-party
// packages, optional platform builds left out), installed with
// `npm install -g` pointed at a closed port, offline: a `dsh` that runs from
// any folder with the base and presets shipped inside dsh-harness: `dsh
// tools`, every shipped overlay by name, an MCP `tools/list` over stdio, a
// config folder of one's own, a plugin installed globally beside it,
// doctor's Node check, and a PDF read without pdf.js's native package.
// (A file of its own: the bundle's making and install take most of a minute
// each on a loaded 2-core machine.)
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdir, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { delimiter, dirname, join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { writePdf } from '../../packages/web-fetch-http/tests/pdf-writer.js'
import { collectOutput, LOOPBACK_ONLY, type RunResult } from '../helpers.js'
import { type LoopbackRegistry, startLoopbackRegistry } from '../support/loopback-registry.js'
import { npmEnv, packedWorkspace } from '../support/packed.js'

const run = promisify(execFile)
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

let work: string
let tarballs: Map<string, string>
before(async () => {
  ;({ work, tarballs } = await packedWorkspace(root, 'dsh-pack-cli-'))
})
after(async () => {
  await rm(work, { recursive: true, force: true })
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
    const mounts: Record<string, string> = { 'anthropic-search': 'web-search-anthropic', 'gemini-search': 'web-search-gemini', 'brave-search': 'web-search-brave', 'openai-search': 'web-search-openai', 'searxng-search': 'web-search-searxng', 'redis-state': 'state-redis', 'tavily-search': 'web-search-tavily', 'exa-search': 'web-search-exa', 'perplexity-search': 'web-search-perplexity' }
    for (const [overlay, row] of Object.entries(mounts)) {
      const composition = json(await dsh(['compose', '--json', '--config', overlay]))
      assert.equal(composition.layers.at(-1), join(harness, 'config', 'overlays', `${overlay}.cordis.yml`))
      assert.ok(composition.rows.some((entry: any) => entry.id === row), `${overlay} mounts ${row}`)
    }
    const reference = await dsh(['docs', 'config'])
    assert.equal(reference.code, 0, reference.stderr)
    for (const name of ['dsh-web-search-anthropic', 'dsh-web-search-gemini', 'dsh-web-search-brave', 'dsh-web-search-openai', 'dsh-web-search-searxng', 'dsh-state-redis', 'dsh-web-search-tavily', 'dsh-web-search-exa', 'dsh-web-search-perplexity']) assert.match(reference.stdout, new RegExp(`## ${name}\\n`))
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
  it("reads a PDF with no optional platform build in the bundle (pdf.js's native @napi-rs/canvas left out)", async () => {
    const modules = join(prefix, 'lib', 'node_modules', 'dsh-cli', 'node_modules')
    assert.ok(!(await readdir(modules)).includes('@napi-rs'), 'the bundle holds no native canvas build')
    const pdf = writePdf([{ lines: ['Minutes read from the bundle', 'on any platform.'] }], { title: 'Bundle minutes' })
    const server: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(pdf.length) })
      response.end(pdf)
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/minutes.pdf`
      const result = await dsh(['fetch', url, '--private-host', '127.0.0.1'])
      assert.equal(result.code, 0, result.stderr)
      assert.match(result.stdout, /read as PDF, 1 page/)
      assert.match(result.stdout, /--- page 1 ---\nMinutes read from the bundle\non any platform\./)
    } finally {
      server.closeAllConnections()
      await new Promise((done) => server.close(done))
    }
  })
})
