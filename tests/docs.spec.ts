import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { CLI, ROOT } from './helpers.js'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

async function sourceFiles(folder: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)))
    else if (entry.name.endsWith('.ts')) found.push(path)
  }
  return found
}

describe('docs kept true by the code', () => {
  it('docs/tools.md is what `pnpm docs:tools` generates from the registered schemas', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'docs', 'tools'], { cwd: ROOT })
    const committed = await readFile(join(ROOT, 'docs/tools.md'), 'utf8')
    assert.equal(committed, stdout, 'docs/tools.md is stale: run `npx -y pnpm@12.4.2 docs:tools`')
  })

  it('docs/config.md is what `pnpm docs:config` generates from every shipped row\'s schema', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'docs', 'config'], { cwd: ROOT, env: { ...process.env, DSH_HOME: '' } })
    const committed = await readFile(join(ROOT, 'docs/config.md'), 'utf8')
    assert.equal(committed, stdout, 'docs/config.md is stale: run `npx -y pnpm@12.4.2 docs:config`')
    for (const key of ['`privateHosts`', '`proxy.url`', '`apiKeyEnv`', '## dsh-web-search-brave', '## dsh-state-redis', '`OPENAI_SEARCH_BASE_URL`', '`OPENAI_BASE_URL`']) assert.ok(committed.includes(key), key)
  })

  it('docs/events.md documents every session event type the packages write', async () => {
    const events = await readFile(join(ROOT, 'docs/events.md'), 'utf8')
    const documented = new Set([...events.matchAll(/^### `([a-z0-9/-]+)`/gm)].map((match) => match[1]))
    const written = new Set<string>()
    for (const file of await sourceFiles(join(ROOT, 'packages'))) {
      if (!file.includes('/src/')) continue
      const text = await readFile(file, 'utf8')
      for (const match of text.matchAll(/append\(\s*'([a-z0-9/-]+)'/g)) written.add(match[1])
      for (const match of text.matchAll(/_EVENT = '([a-z0-9/-]+)'/g)) written.add(match[1])
      if (text.includes("session.append('web/")) for (const match of text.matchAll(/'(web\/[a-z0-9-]+)'/g)) written.add(match[1])
    }
    assert.ok(written.size >= 8, `found only ${[...written].join(', ')}`)
    for (const type of written) assert.ok(documented.has(type), `${type} is written by the code but not documented in docs/events.md`)
    for (const type of documented) assert.ok(written.has(type), `${type} is documented but no package writes it`)
  })
})
