// Every plugin of the family refuses a config key it does not declare, itself,
// on a bare Cordis app (no dsh-harness loader in front of it): a misspelled
// key must never be dropped without a word, whichever host mounts the row.
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import * as web from 'dsh-web'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** The workspace packages that are Cordis plugins with a config schema: each exports name, Config and apply. */
async function plugins(): Promise<string[]> {
  const names: string[] = []
  for (const folder of await readdir(join(root, 'packages'))) {
    const manifest = JSON.parse(await readFile(join(root, 'packages', folder, 'package.json'), 'utf8').catch(() => '{}'))
    if (manifest.keywords?.includes('cordis-plugin')) names.push(manifest.name)
  }
  return names.sort()
}

describe('a config key no plugin declares', () => {
  it('is refused by every plugin itself, naming the key', async () => {
    const names = await plugins()
    assert.ok(names.length >= 12, names.join(', '))
    for (const name of names) {
      const plugin = await import(name)
      assert.equal(typeof plugin.apply, 'function', name)
      const ctx = new Context()
      const failures: unknown[] = []
      ctx.on('internal/error', (error: unknown) => void failures.push(error))
      if (name !== 'dsh-web') ctx.plugin(web, {})
      const fork = ctx.plugin(plugin, { notAKeyOfThisPlugin: true })
      await ctx.start()
      const error = (fork.runtime.error ?? fork.error ?? failures[0]) as any
      assert.equal(error?.code, 'CONFIG_UNKNOWN_KEY', `${name}: ${String(error)}`)
      assert.match(error.message, new RegExp(`^${name} refuses its config: key "notAKeyOfThisPlugin" is not a config key of this plugin`), name)
      await ctx.stop()
    }
  })
})
