// What scripts/build.mjs promises of each package's dist/: a bundle for each
// entry a package offers (its exports, its bin, the modules it starts by
// file name), no other JavaScript, and no package's code inside another's
// bundle, so a host loads one copy of each package (one WebError class, one
// CodedError), as it would from per-file output.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ROOT } from './helpers.js'

const folders = readdirSync(join(ROOT, 'packages')).filter((entry) => existsSync(join(ROOT, 'packages', entry, 'package.json')))
const packages = folders.map((folder) => ({ folder, dir: join(ROOT, 'packages', folder), manifest: JSON.parse(readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8')) }))

/** Every .js file under `dir`, relative to it. */
function javascript(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'))
}

describe('the build (scripts/build.mjs)', () => {
  it("writes each package's exports and bin targets, and nothing but bundles and their chunks at the top of dist/", () => {
    for (const { folder, dir, manifest } of packages) {
      const targets = [...Object.values(manifest.exports ?? {}).map((entry: any) => entry?.default), ...Object.values(manifest.bin ?? {})].filter((target): target is string => typeof target === 'string' && target.endsWith('.js'))
      for (const target of targets) assert.ok(existsSync(join(dir, target)), `${folder}: ${target} was built`)
      // The JavaScript is the entry points and their shared chunks; a per-file build's leftovers would be a second copy of the code.
      const entries = new Set(targets.map((target) => target.replace(/^\.\/dist\//, '')))
      for (const file of javascript(join(dir, 'dist'))) {
        assert.ok(entries.has(file) || !file.includes('/'), `${folder}: dist/${file} is neither an entry point nor a chunk beside the bundles`)
      }
    }
  })

  it('keeps each package in its own bundle: a class of the contract is defined in one package only', () => {
    for (const [name, owner] of [['WebError', 'web'], ['CodedError', 'host'], ['SessionService', 'harness']] as const) {
      const defining = packages.flatMap(({ folder, dir }) =>
        javascript(join(dir, 'dist')).filter((file) => new RegExp(`\\bclass ${name}\\b|\\b${name} = class\\b`).test(readFileSync(join(dir, 'dist', file), 'utf8'))).map((file) => `${folder}/dist/${file}`),
      )
      assert.ok(defining.length > 0, `class ${name} is defined somewhere`)
      assert.ok(defining.every((file) => file.startsWith(`${owner}/`)), `class ${name} is defined only in ${owner}: ${defining.join(', ')}`)
    }
  })

})
