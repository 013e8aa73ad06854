// The packages as they would be published, for tests that install them with
// npm into empty folders: `pnpm pack` of workspace packages, and npm's
// environment for an install that reaches nothing but a loopback registry.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * npm's environment: none of the npm_config_* that pnpm passes to a script it
 * runs, no proxy, no user or global npmrc, a cache of its own, nothing
 * reported anywhere; engines enforced.
 */
export function npmEnv(work: string, registry: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_)|^(https?|all|no)_proxy$/i.test(key)))
  return {
    ...env,
    npm_config_registry: registry,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_userconfig: join(work, 'npmrc'),
    npm_config_globalconfig: join(work, 'npmrc-global'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_engine_strict: 'true',
    npm_config_loglevel: 'error',
  }
}

/**
 * The tarballs of the package folders given (relative to the repo root), by
 * package name. npx takes pnpm from its cache (the install command put it there).
 */
export async function packFolders(root: string, folders: string[], destination: string): Promise<Map<string, string>> {
  await run('npx', ['--offline', '-y', 'pnpm@12.4.2', ...folders.flatMap((folder) => ['--filter', `./${folder}`]), 'pack', '--pack-destination', destination], {
    cwd: root,
    env: { ...process.env, npm_config_offline: 'true' },
  })
  const tarballs = new Map<string, string>()
  for (const folder of folders) {
    const { name, version } = JSON.parse(await readFile(join(root, folder, 'package.json'), 'utf8'))
    const file = join(destination, `${name}-${version}.tgz`)
    assert.ok(existsSync(file), `pnpm pack wrote ${name}'s tarball`)
    tarballs.set(name, file)
  }
  return tarballs
}

/**
 * A work folder of its own (empty npmrc files for npmEnv) holding the
 * tarballs of every workspace package and of the test plugins (a plugin of
 * one's own), by name.
 */
export async function packedWorkspace(root: string, label: string): Promise<{ work: string; tarballs: Map<string, string> }> {
  const work = await realpath(await mkdtemp(join(tmpdir(), label)))
  await mkdir(join(work, 'tarballs'))
  await writeFile(join(work, 'npmrc'), '')
  await writeFile(join(work, 'npmrc-global'), '')
  const folders = (await readdir(join(root, 'packages'))).map((folder) => `packages/${folder}`).filter((folder) => existsSync(join(root, folder, 'package.json')))
  return { work, tarballs: await packFolders(root, [...folders, 'tests/plugins'], join(work, 'tarballs')) }
}
