import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { compose } from 'dsh-harness'
import { LayerCache } from '../src/compose/layer-cache.js'

const HARNESS = resolve(import.meta.dirname, '..')

const BASE = ['- id: tools', '  name: dsh-harness/tools', '- id: echo', '  name: dsh-test-plugins/echo-tool', '  config: { prefix: from-yaml }', ''].join('\n')

describe('the layer cache ($DSH_HOME/cache/layers.json)', () => {
  let configDir: string
  let home: string
  const cacheFile = () => join(home, 'cache', 'layers.json')

  before(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'dsh-layer-cache-config-'))
  })
  beforeEach(async () => {
    await writeFile(join(configDir, 'base.cordis.yml'), BASE)
    home = await mkdtemp(join(tmpdir(), 'dsh-layer-cache-home-'))
  })
  afterEach(async () => {
    await rm(home, { recursive: true, force: true })
  })
  after(async () => {
    await rm(configDir, { recursive: true, force: true })
  })

  async function echoPrefix(): Promise<unknown> {
    const composition = await compose({ configDir, home })
    try {
      return (composition.rows().find((row) => row.id === 'echo')!.config as Record<string, unknown>).prefix
    } finally {
      await composition.dispose()
    }
  }

  /** Composes in a fresh process and says whether the yaml package was loaded there. */
  function yamlLoadedInChild(): boolean {
    const script = [
      "import { createRequire } from 'node:module'",
      "import { compose } from 'dsh-harness'",
      `const composition = await compose({ configDir: ${JSON.stringify(configDir)}, home: ${JSON.stringify(home)} })`,
      'await composition.dispose()',
      "process.stdout.write(String(Object.keys(createRequire(import.meta.url).cache).some((file) => /[\\\\/]yaml[\\\\/]dist[\\\\/]/.test(file))))",
    ].join('\n')
    return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: HARNESS, encoding: 'utf8' }) === 'true'
  }

  it('a composition whose files did not change starts without loading the YAML parser', () => {
    assert.equal(yamlLoadedInChild(), true, 'the first start parses the files')
    assert.ok(existsSync(cacheFile()))
    assert.equal(yamlLoadedInChild(), false, 'the second start reads them from the cache')
  })

  it('an edited file is parsed again: entries are by the text, never by the name', async () => {
    assert.equal(await echoPrefix(), 'from-yaml')
    await writeFile(join(configDir, 'base.cordis.yml'), BASE.replace('from-yaml', 'edited'))
    assert.equal(await echoPrefix(), 'edited')
  })

  it('what the cache holds is what composes, so it must be the operator\'s: a cache others can write is not read', async () => {
    await echoPrefix()
    const cache = JSON.parse(await readFile(cacheFile(), 'utf8'))
    const [key] = Object.keys(cache.entries)
    cache.entries[key][1].config.prefix = 'from-cache'
    await writeFile(cacheFile(), JSON.stringify(cache))
    // The cache is used (this is what makes the test able to fail)...
    assert.equal(await echoPrefix(), 'from-cache')
    // ...but not once another user could have written it.
    await chmod(cacheFile(), 0o666)
    assert.equal(await echoPrefix(), 'from-yaml')
  })

  it('a damaged cache is a miss, and is written over with a good one', async () => {
    await mkdir(join(home, 'cache'), { mode: 0o700 })
    await writeFile(cacheFile(), '{ not json', { mode: 0o600 })
    assert.equal(await echoPrefix(), 'from-yaml')
    assert.equal(JSON.parse(await readFile(cacheFile(), 'utf8')).version, 1)
  })

  it('never creates a home: where there is none, nothing is written', async () => {
    const missing = join(home, 'not-there')
    const composition = await compose({ configDir, home: missing })
    await composition.dispose()
    assert.equal(existsSync(missing), false)
  })

  it('keeps only plain JSON data of bounded texts, the newest 32', async () => {
    const cache = await LayerCache.open(home)
    cache.remember('a: .inf', [{ id: 'x', config: { n: Infinity } }])
    cache.remember('x'.repeat(64 * 1024 + 1), [])
    for (let index = 0; index < 40; index++) cache.remember(`- id: row${index}`, [{ id: `row${index}` }])
    await cache.save()
    const reread = await LayerCache.open(home)
    assert.equal(reread.get('a: .inf'), undefined)
    assert.equal(reread.get('x'.repeat(64 * 1024 + 1)), undefined)
    assert.equal(reread.get('- id: row7'), undefined)
    assert.deepEqual(reread.get('- id: row8'), [{ id: 'row8' }])
    assert.deepEqual(reread.get('- id: row39'), [{ id: 'row39' }])
  })
})
