// The plugins in hosts that are not ours, set up from docs/host-contract.md
// alone: a Cordis app under the official loader (`cordis start`) and a Koishi
// app (`koishi start`), each installed with npm into an empty folder from the
// packed tarballs and this machine's packages (a loopback registry), with the
// files the doc shows. A probe plugin calls web_fetch at its own start after
// the two readiness waits, and prints what it got.
import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { LOOPBACK_ONLY } from './helpers.js'
import { type LoopbackRegistry, startLoopbackRegistry } from './support/loopback-registry.js'
import { npmEnv, packFolders } from './support/packed.js'

const run = promisify(execFile)
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** The files docs/host-contract.md shows, by the name in their fence (```js file=tools-service.mjs). */
async function docFiles(): Promise<Map<string, string>> {
  const doc = await readFile(join(root, 'docs', 'host-contract.md'), 'utf8')
  return new Map([...doc.matchAll(/^```\w+ file=(\S+)\n([\s\S]*?)^```$/gm)].map((match) => [match[1]!, match[2]!]))
}

/** Replaces `from` once, failing when the doc no longer holds it. */
function patch(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the doc's file holds ${JSON.stringify(from)}`)
  return text.replace(from, to)
}

interface Started {
  child: ChildProcess
  output: () => string
  /** Resolves with the output so far once a line matches, rejects when the process exits first. */
  waitFor(pattern: RegExp): Promise<string>
  stop(): Promise<void>
}

/** Starts a host's command in its own process group, so that stop() ends the host and any child it forks (Koishi forks its worker). */
function start(command: string, args: string[], cwd: string): Started {
  const child = spawn(command, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...LOOPBACK_ONLY, FORCE_COLOR: '0', NO_COLOR: '1' } })
  let output = ''
  const waiters = new Set<() => void>()
  const onData = (chunk: string) => {
    output += chunk
    for (const waiter of waiters) waiter()
  }
  child.stdout!.setEncoding('utf8').on('data', onData)
  child.stderr!.setEncoding('utf8').on('data', onData)
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()))
  return {
    child,
    output: () => output,
    waitFor: (pattern) =>
      new Promise<string>((resolveWait, reject) => {
        const check = () => {
          if (!pattern.test(output)) return
          waiters.delete(check)
          resolveWait(output)
        }
        waiters.add(check)
        exited.then(() => {
          waiters.delete(check)
          if (!pattern.test(output)) reject(new Error(`${command} exited before printing ${pattern}:\n${output}`))
        })
        check()
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL')
        } catch {}
      }
      await exited
    },
  }
}

/** The probe's line: what web_fetch returned to a plugin that called it at its own start. */
function probeResult(output: string): any {
  const line = output.split('\n').find((candidate) => candidate.includes('DSH-PROBE '))
  assert.ok(line, output)
  return JSON.parse(line.slice(line.indexOf('DSH-PROBE ') + 'DSH-PROBE '.length))
}

const PAGE = `<!doctype html><html><head><title>A page for a foreign host</title></head><body><article><h1>Foreign host</h1>
${Array.from({ length: 10 }, (_, index) => `<p>Paragraph ${index} of the page a Cordis or Koishi app read through the web tools.</p>`).join('\n')}
</article></body></html>`

let work: string
let registry: LoopbackRegistry
let server: Server
let pageUrl: string
let files: Map<string, string>

before(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'dsh-foreign-')))
  await mkdir(join(work, 'tarballs'))
  await writeFile(join(work, 'npmrc'), '')
  await writeFile(join(work, 'npmrc-global'), '')
  const tarballs = await packFolders(root, ['packages/host', 'packages/web', 'packages/web-egress', 'packages/web-readers', 'packages/web-fetch-http', 'packages/tool-web'], join(work, 'tarballs'))
  registry = await startLoopbackRegistry({ tarballs: [...tarballs.values()], store: join(root, 'node_modules', '.pnpm') })
  server = createServer((request, response) => {
    response.writeHead(request.url === '/page' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' })
    response.end(request.url === '/page' ? PAGE : 'not here')
  })
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen))
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`
  files = await docFiles()
})

after(async () => {
  await registry?.close()
  await new Promise((resolveClose) => server?.close(resolveClose))
  await rm(work, { recursive: true, force: true })
})

/** A new app folder with the packages installed as the doc's npm line does, and the doc's tools service and our probe beside its config. */
async function app(folder: string, packages: string[]): Promise<string> {
  const dir = join(work, folder)
  await mkdir(dir)
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: folder, private: true }))
  await run('npm', ['install', ...packages], { cwd: dir, env: npmEnv(work, registry.url), maxBuffer: 16 << 20 })
  await writeFile(join(dir, 'tools-service.mjs'), files.get('tools-service.mjs')!)
  await copyFile(join(root, 'tests', 'plugins', 'ready-probe.mjs'), join(dir, 'ready-probe.mjs'))
  return dir
}

describe('the doc', () => {
  it("shows the tools service the tests run, as it is in tests/plugins", async () => {
    assert.equal(files.get('tools-service.mjs'), await readFile(join(root, 'tests', 'plugins', 'contract-tools.mjs'), 'utf8'))
    assert.ok(files.has('cordis.yml') && files.has('koishi.yml'), [...files.keys()].join(', '))
  })
})

describe('a Cordis app under the official loader, from docs/host-contract.md', () => {
  let dir: string
  let running: Started | undefined
  before(async () => {
    dir = await app('cordis-app', ['cordis@3.18.1', 'dsh-web', 'dsh-web-fetch-http', 'dsh-tool-web'])
  })
  after(() => running?.stop())

  /** The doc's cordis.yml with loopback trusted (the test page is on 127.0.0.1), and more rows after it. */
  const config = (more = '') =>
    patch(files.get('cordis.yml')!, '  name: dsh-web-fetch-http\n  config: {}\n', '  name: dsh-web-fetch-http\n  config:\n    privateHosts: [127.0.0.1]\n') + more

  const probeRow = () => `- id: probe\n  name: ./ready-probe.mjs\n  config:\n    url: ${pageUrl}\n`

  it('reads a page with web_fetch called at a plugin\'s own start, after the two readiness waits', async () => {
    await writeFile(join(dir, 'cordis.yml'), config(probeRow()))
    running = start(process.execPath, [join(dir, 'node_modules', 'cordis', 'lib', 'bin', 'cordis.mjs'), 'start'], dir)
    const output = await running.waitFor(/DSH-PROBE /)
    const result = probeResult(output)
    assert.equal(result.isError, false, JSON.stringify(result))
    assert.match(result.content, /Paragraph 9 of the page a Cordis or Koishi app read through the web tools\./)
    await running.stop()
  })

  it('logs which service dsh-tool-web waits for, and what provides it, when no row provides tools', async () => {
    await writeFile(join(dir, 'cordis.yml'), patch(config(), '- id: tools\n  name: ./tools-service.mjs\n', ''))
    running = start(process.execPath, [join(dir, 'node_modules', 'cordis', 'lib', 'bin', 'cordis.mjs'), 'start'], dir)
    const output = await running.waitFor(/dsh-tool-web is waiting/)
    assert.match(output, /dsh-tool-web is waiting for the service "tools" \(a tools service: dsh-harness\/tools in dsh-harness, or your host's own/)
    await running.stop()
  })

  it('refuses a misspelled key in a row, naming it', async () => {
    await writeFile(join(dir, 'cordis.yml'), patch(config(), '    fetch: true\n', '    fetch: true\n    fecthMaxChars: 500\n'))
    running = start(process.execPath, [join(dir, 'node_modules', 'cordis', 'lib', 'bin', 'cordis.mjs'), 'start'], dir)
    const output = await running.waitFor(/refuses its config/)
    assert.match(output, /dsh-tool-web refuses its config: key "fecthMaxChars" is not a config key of this plugin/)
    await running.stop()
  })
})

describe('a Koishi app, from docs/host-contract.md', () => {
  let dir: string
  let running: Started | undefined
  before(async () => {
    dir = await app('koishi-app', [
      'koishi@4.18.11',
      'koishi-plugin-dsh-web@npm:dsh-web',
      'koishi-plugin-dsh-web-fetch-http@npm:dsh-web-fetch-http',
      'koishi-plugin-dsh-tool-web@npm:dsh-tool-web',
    ])
  })
  after(() => running?.stop())

  it('mounts the plugins by the names koishi.yml gives and reads a page with web_fetch at a plugin\'s start', async () => {
    const config = patch(files.get('koishi.yml')!, '  dsh-web-fetch-http: {}\n', '  dsh-web-fetch-http:\n    privateHosts: [127.0.0.1]\n') + `  ./ready-probe.mjs:\n    url: ${pageUrl}\n`
    await writeFile(join(dir, 'koishi.yml'), config)
    running = start(process.execPath, [join(dir, 'node_modules', 'koishi', 'bin.js'), 'start'], dir)
    const output = await running.waitFor(/DSH-PROBE /)
    const result = probeResult(output)
    assert.equal(result.isError, false, JSON.stringify(result))
    assert.match(result.content, /Paragraph 9 of the page a Cordis or Koishi app read through the web tools\./)
    assert.match(output, /apply plugin dsh-web:/)
    await running.stop()
  })
})
