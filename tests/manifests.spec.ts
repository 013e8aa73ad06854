// What each package promises in its package.json holds: one Node floor for the
// whole family, the one its run-time dependencies demand; the files a tarball
// needs and no more; a README; and dsh-cli depends on every package a shipped
// composition (or an overlay the docs offer) names.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { parseLayer, shippedConfigDir } from 'dsh-harness'
import { ROOT } from './helpers.js'

interface Manifest {
  name: string
  version: string
  private?: boolean
  engines?: { node?: string }
  files?: string[]
  bin?: Record<string, string>
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

const read = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8'))
const folders = readdirSync(join(ROOT, 'packages')).filter((entry) => existsSync(join(ROOT, 'packages', entry, 'package.json')))
const packages = folders.map((folder) => ({ folder, dir: join(ROOT, 'packages', folder), manifest: read(join(ROOT, 'packages', folder, 'package.json')) }))

type Version = [number, number, number]

/**
 * The lowest Node a semver range admits, as far as engines fields write them
 * (`>=20.19.0 || >=22.13.0`, `^18.0.0 || >=20.0.0`, `>= 0.8`, `>=16`): the
 * smallest lower bound among its alternatives. An alternative without one
 * admits any Node.
 */
export function rangeFloor(range: string): Version {
  const floors = range.split('||').map((alternative) => {
    let floor: Version = [0, 0, 0]
    const comparators = alternative.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean)
    for (const comparator of comparators) {
      const match = /^(>=|>|=|\^|~)?v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(comparator)
      if (!match) continue
      const version: Version = [Number(match[2]), Number(match[3]) || 0, Number(match[4]) || 0]
      if (compare(version, floor) > 0) floor = version
    }
    return floor
  })
  return floors.reduce((lowest, floor) => (compare(floor, lowest) < 0 ? floor : lowest))
}

function compare(a: Version, b: Version): number {
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index] - b[index]
  return 0
}

/** The installed folder of `name` as Node resolves it from `from`, or undefined. */
function installedDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name, 'package.json')
    if (existsSync(candidate)) return dirname(realpathSync(candidate))
    if (dirname(dir) === dir) return undefined
  }
}

/** Every package the published packages pull in at run time (dependencies, optional ones installed here, peers), with its engines.node. */
function runtimeClosure(): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>()
  const visit = (dir: string) => {
    const manifest = read(join(dir, 'package.json'))
    const key = `${manifest.name}@${manifest.version}`
    if (found.has(key)) return
    found.set(key, manifest.engines?.node)
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies })) {
      const installed = installedDir(name, dir)
      if (installed) visit(installed)
      else assert.ok(name in (manifest.optionalDependencies ?? {}) || name in (manifest.peerDependencies ?? {}), `${key} depends on ${name}, which is not installed`)
    }
  }
  for (const { dir } of packages) visit(realpathSync(dir))
  return found
}

describe('package manifests', () => {
  const root = read(join(ROOT, 'package.json'))

  it('reads engines ranges the way npm does for their lowest Node', () => {
    assert.deepEqual(rangeFloor('>=20.19.0 || >=22.13.0 || >=24'), [20, 19, 0])
    assert.deepEqual(rangeFloor('^18.0.0 || >=20.0.0'), [18, 0, 0])
    assert.deepEqual(rangeFloor('>= 0.8'), [0, 8, 0])
    assert.deepEqual(rangeFloor('>=12 <14'), [12, 0, 0])
    assert.deepEqual(rangeFloor('*'), [0, 0, 0])
  })

  it('every package and the workspace state one Node floor: the highest any run-time dependency demands', () => {
    const closure = runtimeClosure()
    assert.ok(closure.size > 50, `walked ${closure.size} packages`)
    let highest: Version = [0, 0, 0]
    const demanding: string[] = []
    for (const [key, range] of closure) {
      if (!range) continue
      const floor = rangeFloor(range)
      if (compare(floor, highest) > 0) {
        highest = floor
        demanding.length = 0
      }
      if (compare(floor, highest) === 0) demanding.push(`${key} (${range})`)
    }
    const declared = root.engines?.node
    assert.ok(declared, 'the workspace package.json has engines.node')
    assert.deepEqual(rangeFloor(declared), highest, `engines.node "${declared}", but ${demanding.join(', ')} need Node ${highest.join('.')}`)
    for (const { manifest } of packages) assert.equal(manifest.engines?.node, declared, `${manifest.name}'s engines.node`)
    assert.ok(compare(rangeFloor(declared), process.versions.node.split('.').map(Number) as Version) <= 0, `this Node ${process.versions.node} is below ${declared}`)
  })

  it('the README and the docs name the same Node floor', () => {
    const floor = rangeFloor(root.engines!.node!)
    const shown = `Node ${floor[0]}.${floor[1]}`
    assert.ok(readFileSync(join(ROOT, 'README.md'), 'utf8').includes(`${shown} or newer`), `README.md says "${shown} or newer"`)
    for (const file of ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]) {
      for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(/Node (\d+\.\d+)(?:\.\d+)? or newer/g)) {
        assert.equal(`Node ${match[1]}`, shown, `${file} says "${match[0]}"`)
      }
    }
  })

  it('ships dist and src (which the source maps point into) and a README', () => {
    for (const { folder, dir, manifest } of packages) {
      const files = manifest.files ?? []
      assert.deepEqual(files.filter((entry) => entry !== 'config'), ['dist', 'src'], `${manifest.name}'s files`)
      assert.equal(files.includes('config'), manifest.name === 'dsh-harness', `${manifest.name}: only dsh-harness ships the config folder`)
      assert.ok(existsSync(join(dir, 'README.md')), `packages/${folder}/README.md`)
      assert.ok(!manifest.private, `${manifest.name} is publishable`)
      assert.ok(readFileSync(join(dir, 'README.md'), 'utf8').startsWith(`# ${manifest.name}\n`), `packages/${folder}/README.md starts with its name`)
    }
  })

  it('gives dsh to dsh-harness and to dsh-cli, as built files that run with node', () => {
    for (const [name, bin] of [['dsh-harness', './dist/cli.js'], ['dsh-cli', './dist/dsh.js']] as const) {
      const { dir, manifest } = packages.find((item) => item.manifest.name === name)!
      assert.deepEqual(manifest.bin, { dsh: bin })
      assert.match(readFileSync(join(dir, bin), 'utf8'), /^#!\/usr\/bin\/env node\n/, `${name}'s ${bin} starts with a node shebang`)
    }
  })

  it('dsh-cli depends on every package the shipped compositions and the shipped overlays name, and on cordis', async () => {
    const cli = packages.find((item) => item.manifest.name === 'dsh-cli')!.manifest
    const shipped = shippedConfigDir()
    const files = [
      join(shipped, 'base.cordis.yml'),
      ...readdirSync(join(shipped, 'presets')).map((file) => join(shipped, 'presets', file)),
      ...readdirSync(join(ROOT, 'config/overlays')).filter((file) => file.endsWith('.cordis.yml')).map((file) => join(ROOT, 'config/overlays', file)),
    ]
    const named = new Set<string>()
    for (const file of files) {
      for (const row of (await parseLayer(file, readFileSync(file, 'utf8'))).rows) {
        if (row.name) named.add(row.name.split('/').slice(0, row.name.startsWith('@') ? 2 : 1).join('/'))
      }
    }
    assert.ok(named.has('dsh-web') && named.has('dsh-harness') && named.has('dsh-web-search-brave'), [...named].join(', '))
    for (const name of named) assert.ok(cli.dependencies?.[name], `dsh-cli depends on ${name}, which a shipped row names`)
    assert.ok(cli.dependencies?.cordis, 'dsh-cli depends on cordis, the peer every plugin and the host share')
  })
})
