import { createRequire } from 'node:module'
import { dirname } from 'node:path'

const require = createRequire(import.meta.url)
let packageJson: string | undefined

/**
 * dsh-harness's package.json, found by the package's own name (Node resolves
 * a package's name from inside it through its `exports`), so the answer does
 * not depend on where the calling code sits: in src/ under tsx, or in a
 * bundle or one of its chunks in dist/. Resolved once per process.
 */
export function harnessPackageJson(): string {
  return (packageJson ??= require.resolve('dsh-harness/package.json'))
}

/** The folder dsh-harness is installed in (its package.json's). */
export function harnessPackageDir(): string {
  return dirname(harnessPackageJson())
}

/** dsh-harness's version, from its package.json. */
export function harnessVersion(): string {
  return (require(harnessPackageJson()) as { version: string }).version
}
