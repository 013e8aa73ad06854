// The workspace build: `tsc -b` checks every package and writes its
// declarations to dist/; esbuild then writes each package's JavaScript to
// dist/ as one module per entry point (with the code several entries share in
// chunk files beside them), so a command loads a dozen files, not 150: loading
// modules was most of `dsh tools --json`'s start (bench:cli-start).
//
//   node scripts/build.mjs        (npx -y pnpm@12.4.2 build)
//
// One bundle per package, never across packages: every import of another
// package (ours or a third party's) stays an import, so a host that mounts our
// plugins loads one copy of each package (one `dsh-web`, one `cordis`), as
// it would without the bundles.
//
// The entry points are what a package offers: each `exports` target and `bin`
// (at the same path under dist/ as its source under src/), and the modules a
// package starts by file name in a worker thread or a child process
// (workerModuleBeside in dsh-host): those are written flat in dist/, beside
// the bundle whose code starts them, as they sit beside it in src/.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'

const ROOT = resolve(import.meta.dirname, '..')
const require = createRequire(import.meta.url)

/** The modules each package starts by file name (a worker thread or a child process). */
const STARTED_BY_NAME = {
  'dsh-run-code': ['src/code-worker.ts'],
  'dsh-web-readers': ['src/workers/extract-worker.ts', 'src/workers/document-child.ts'],
}

const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b'], { cwd: ROOT, stdio: 'inherit' })
if (tsc.status !== 0) process.exit(tsc.status ?? 1)

const packages = readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name))
await Promise.all(packages.map(bundlePackage))

async function bundlePackage(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const entryPoints = {}
  for (const target of [...Object.values(pkg.exports ?? {}).map((entry) => entry.default), ...Object.values(pkg.bin ?? {})]) {
    if (typeof target !== 'string' || !target.startsWith('./dist/') || !target.endsWith('.js')) continue
    entryPoints[target.slice('./dist/'.length, -'.js'.length)] = `src/${target.slice('./dist/'.length, -'.js'.length)}.ts`
  }
  for (const source of STARTED_BY_NAME[pkg.name] ?? []) entryPoints[source.replace(/^.*\//, '').replace(/\.ts$/, '')] = source
  const result = await build({
    absWorkingDir: dir,
    entryPoints,
    outdir: 'dist',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Every package import stays an import: one copy of each package in a host.
    packages: 'external',
    chunkNames: '[name]-[hash]',
    // A name esbuild gives a function or class to avoid a clash (WebError2) would reach `.name`, which logs and Cordis show.
    keepNames: true,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  })
  removeStaleJavaScript(join(dir, 'dist'), new Set(Object.keys(result.metafile.outputs).map((file) => resolve(dir, file))))
}

/** JavaScript in dist/ that this build did not write (a per-file build's, or an older chunk) would be a second, stale copy. */
function removeStaleJavaScript(dir, written) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = join(entry.parentPath ?? entry.path, entry.name)
    if (entry.isFile() && /\.js(\.map)?$/.test(entry.name) && !written.has(file)) rmSync(file)
  }
}
