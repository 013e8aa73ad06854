// The README's test command starts by finding the Debian programs the suite
// runs for real; on a machine without them it installs them (root with
// apt-get) or stops with the command that does, instead of failing suites.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { PREREQUISITES, plan } from '../scripts/test-prerequisites.mjs'
import { collectOutput, ROOT, tempHome } from './helpers.js'

const SCRIPT = join(ROOT, 'scripts/test-prerequisites.mjs')

/** The temporary folders binFolder made, removed after the suite. */
const made: string[] = []
after(() => Promise.all(made.map((home) => rm(home, { recursive: true, force: true }))))

/** A folder of executables with these names (each does nothing). */
async function binFolder(names: string[]): Promise<string> {
  const home = await tempHome()
  made.push(home)
  const dir = join(home, 'bin')
  await mkdir(dir, { recursive: true })
  for (const name of names) {
    await writeFile(join(dir, name), '#!/bin/sh\nexit 0\n')
    await chmod(join(dir, name), 0o755)
  }
  return dir
}

const every = PREREQUISITES.map((entry: { command: string }) => entry.command)
const withoutSquidAndRedis = every.filter((name: string) => name !== 'squid' && name !== 'redis-server')

describe('test prerequisites', () => {
  it('is satisfied when every program is on PATH', async () => {
    const all = await binFolder(every)
    assert.equal(plan({ pathDirs: [all], systemDirs: [], root: false }).kind, 'ok')
  })

  it('names each missing program with its package and why, and prints the one command that installs them', async () => {
    const some = await binFolder(withoutSquidAndRedis)
    const result = plan({ pathDirs: [some], systemDirs: [], root: false })
    assert.equal(result.kind, 'tell')
    assert.deepEqual(result.packages, ['squid', 'redis-server'])
    assert.match(result.message, /squid \(Debian package squid\): the host-name tests/)
    assert.match(result.message, /redis-server \(Debian package redis-server\)/)
    assert.match(result.message, /sudo apt-get update && sudo apt-get install -y squid redis-server/)
    assert.doesNotMatch(result.message, /tinyproxy \(/, 'a program that is there is not named')
  })

  it('installs the missing packages itself as root with apt-get, and only tells without apt-get', async () => {
    const some = await binFolder([...withoutSquidAndRedis, 'apt-get'])
    const asRoot = plan({ pathDirs: [some], systemDirs: [], root: true })
    assert.equal(asRoot.kind, 'install')
    assert.deepEqual(asRoot.packages, ['squid', 'redis-server'])
    assert.equal(plan({ pathDirs: [some], systemDirs: [], root: false }).kind, 'tell')
    const noApt = await binFolder(withoutSquidAndRedis)
    assert.equal(plan({ pathDirs: [noApt], systemDirs: [], root: true }).kind, 'tell')
  })

  it('says a program is installed but off PATH (Debian keeps daemons in sbin) instead of installing it again', async () => {
    const some = await binFolder([...withoutSquidAndRedis, 'redis-server', 'apt-get'])
    const sbin = await binFolder(['squid'])
    const result = plan({ pathDirs: [some], systemDirs: [sbin], root: true })
    assert.equal(result.kind, 'path')
    assert.deepEqual(result.packages, [])
    assert.ok(result.message.includes(`Add ${sbin} to PATH`), result.message)
  })

  it('runs as a command: exit 0 and silent when all is there, exit 1 naming what is missing otherwise', async () => {
    const all = await binFolder(every)
    const ok = await collectOutput(spawn(process.execPath, [SCRIPT], { env: { PATH: all } }))
    assert.deepEqual([ok.code, ok.stderr], [0, ''])
    const some = await binFolder(withoutSquidAndRedis)
    const missing = await collectOutput(spawn(process.execPath, [SCRIPT], { env: { PATH: some } }))
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /squid/)
    assert.match(missing.stderr, /redis-server/)
  })
})

describe('chromium among the prerequisites', () => {
  it('lists Debian\'s chromium for the rendering provider\'s tests, and names it with its package when it is missing', async () => {
    const entry = (PREREQUISITES as Array<{ command: string; pkg: string; why: string }>).find((item) => item.command === 'chromium')
    assert.deepEqual(entry && { pkg: entry.pkg, why: /rendering provider/.test(entry.why) }, { pkg: 'chromium', why: true })
    const withoutChromium = await binFolder(every.filter((name: string) => name !== 'chromium'))
    const result = plan({ pathDirs: [withoutChromium], systemDirs: [], root: false })
    assert.equal(result.kind, 'tell')
    assert.deepEqual(result.packages, ['chromium'])
    assert.match(result.message, /chromium \(Debian package chromium\): the rendering provider/)
    assert.match(result.message, /sudo apt-get install -y chromium/)
  })
})

describe('.ci/run and the prerequisites', () => {
  it('installs them before it points the proxy variables at a closed port (apt-get would use that proxy), and names every package', async () => {
    const ci = await readFile(join(ROOT, '.ci/run'), 'utf8')
    const step = ci.indexOf('node scripts/test-prerequisites.mjs')
    assert.ok(step > 0, '.ci/run runs the prerequisite step itself')
    assert.ok(step < ci.search(/export "\$name=http/), 'before any proxy variable is set')
    const comments = ci.split('\n').filter((line) => line.startsWith('#')).join(' ')
    for (const entry of PREREQUISITES as Array<{ pkg: string }>) assert.ok(comments.includes(entry.pkg), `.ci/run names ${entry.pkg}`)
  })
})
