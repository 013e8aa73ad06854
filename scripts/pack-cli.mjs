#!/usr/bin/env node
// One dsh-cli tarball that installs alone: `npm install -g ./dsh-cli-X.tgz`
// on a machine that has never seen this repository. Every workspace package
// dsh-cli needs (directly or through another) is packed as it would be
// published (`pnpm pack`: workspace: ranges become versions) and installed
// with npm into the staged package's node_modules, with the third-party
// packages they need from npm's registry; then the whole node_modules is bundled: the tarball holds
// everything dsh runs on, and installs without a registry. Usage:
// node scripts/pack-cli.mjs [--out DIR] (default dist/) [--from DIR] (tarballs
// `pnpm pack` already wrote there); run the build first
// (`npx -y pnpm@12.4.2 pack:cli` does both). Prints the tarball's path and size.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({ options: { out: { type: 'string', default: join(root, 'dist') }, from: { type: 'string' } } })

/** name -> folder of every workspace package under packages/. */
function workspacePackages() {
  const found = new Map()
  for (const folder of readdirSync(join(root, 'packages'))) {
    const manifest = join(root, 'packages', folder, 'package.json')
    if (existsSync(manifest)) found.set(JSON.parse(readFileSync(manifest, 'utf8')).name, join(root, 'packages', folder))
  }
  return found
}

/** The workspace packages `name` needs at run time, itself excluded, in the order first met. */
function workspaceClosure(name, packages) {
  const seen = new Set()
  const visit = (current) => {
    const manifest = JSON.parse(readFileSync(join(packages.get(current), 'package.json'), 'utf8'))
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      if (!packages.has(dependency) || seen.has(dependency)) continue
      seen.add(dependency)
      visit(dependency)
    }
  }
  visit(name)
  return [...seen]
}

function run(command, args, cwd, env = {}) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
}

/** `pnpm pack` of a package folder into `destination`, or with --from DIR the tarball already packed there; the tarball's path. */
function pnpmPack(folder, destination) {
  if (values.from) {
    const { name, version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))
    const packed = join(resolve(values.from), `${name}-${version}.tgz`)
    if (!existsSync(packed)) throw new Error(`--from ${values.from} holds no ${name}-${version}.tgz`)
    return packed
  }
  const before = new Set(readdirSync(destination))
  run('npx', ['--offline', '-y', 'pnpm@12.4.2', 'pack', '--pack-destination', destination], folder, { npm_config_offline: 'true' })
  const made = readdirSync(destination).filter((file) => file.endsWith('.tgz') && !before.has(file))
  if (made.length !== 1) throw new Error(`pnpm pack in ${folder} wrote ${made.length} tarballs`)
  return join(destination, made[0])
}

const packages = workspacePackages()
const bundled = workspaceClosure('dsh-cli', packages)
const work = mkdtempSync(join(tmpdir(), 'dsh-pack-cli-'))
try {
  const tarballs = join(work, 'tarballs')
  mkdirSync(tarballs)
  const stage = join(work, 'stage')
  mkdirSync(stage)
  run('tar', ['-xzf', pnpmPack(packages.get('dsh-cli'), tarballs), '-C', stage], root)
  const top = join(stage, 'package')
  const packed = new Map(bundled.map((name) => [name, pnpmPack(packages.get(name), tarballs)]))
  const manifest = JSON.parse(readFileSync(join(top, 'package.json'), 'utf8'))
  const versions = Object.fromEntries(bundled.map((name) => [name, JSON.parse(readFileSync(join(packages.get(name), 'package.json'), 'utf8')).version]))
  // npm installs the packed workspace packages from their tarballs (each one's dependency on another
  // is met by the other's tarball) and their third-party dependencies from its registry, into the
  // staged package's node_modules, as it would for dsh-cli; no scripts run (none of them builds anything).
  // Optional packages stay out: they are the platform builds of native modules (pdf.js's @napi-rs/canvas,
  // which dsh-web-readers does without), and a bundle made on one platform must install on any.
  for (const name of bundled) delete manifest.dependencies[name]
  writeFileSync(join(top, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  run('npm', ['install', '--omit=dev', '--omit=peer', '--omit=optional', '--no-package-lock', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...packed.values()], top)
  // Then the manifest names every workspace package by its version, and bundles all of node_modules.
  manifest.dependencies = Object.fromEntries(Object.entries({ ...manifest.dependencies, ...versions }).sort(([a], [b]) => a.localeCompare(b)))
  manifest.bundleDependencies = true
  writeFileSync(join(top, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  mkdirSync(values.out, { recursive: true })
  const file = run('npm', ['pack', '--silent', '--pack-destination', resolve(values.out)], top).trim().split('\n').at(-1)
  const path = join(resolve(values.out), file)
  console.log(`${path} (${(statSync(path).size / 1024 / 1024).toFixed(1)} MB: ${bundled.length} workspace packages and their third-party dependencies bundled)`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
