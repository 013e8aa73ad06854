/**
 * Where `dsh` finds its config folder (base.cordis.yml and presets/), and
 * where the packages its rows name are looked up.
 */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { harnessPackageDir } from '../package-root.js'
import { CompositionError } from './composition-files.js'

/**
 * The config folder shipped inside dsh-harness (`config/` beside `dist/` and
 * `src/`): the same folder in the repo, in a packed tarball and in an
 * installed package.
 */
export function shippedConfigDir(): string {
  return join(harnessPackageDir(), 'config')
}

/**
 * The config folder, first found of: `--config-dir DIR`, `$DSH_CONFIG_DIR`,
 * the shipped one. A folder named by the first two must hold base.cordis.yml;
 * the working directory is never looked at, so what runs does not depend on
 * where `dsh` was started.
 */
export function findConfigDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit !== undefined) return checkConfigDir(resolve(explicit), `--config-dir ${explicit}`)
  const fromEnv = env.DSH_CONFIG_DIR?.trim()
  if (fromEnv) return checkConfigDir(resolve(fromEnv), `$DSH_CONFIG_DIR (${fromEnv})`)
  return shippedConfigDir()
}

function checkConfigDir(dir: string, what: string): string {
  if (existsSync(join(dir, 'base.cordis.yml'))) return dir
  throw new CompositionError(
    `${what} holds no base.cordis.yml. A config folder holds base.cordis.yml and, for --preset NAME, presets/NAME.cordis.yml; ` +
      `copy the shipped one (${shippedConfigDir()}) to start your own, or add rows with --config FILE or $DSH_HOME/cordis.yml instead.`,
  )
}

