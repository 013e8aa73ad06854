import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { LockedJsonFile } from '../src/locked-json-file.js'

const WRITER = join(import.meta.dirname, 'fixtures', 'json-file-writer.mjs')

interface List {
  items: string[]
}

function listFile(path: string): LockedJsonFile<List> {
  return new LockedJsonFile<List>(path, {
    what: 'The test list',
    empty: () => ({ items: [] }),
    accepts: (value): value is List => !!value && Array.isArray(value.items),
    shape: '{ "items": [...] }',
    fix: 'remove it',
  })
}

/** A writer process, started and waiting for "go" on stdin. */
async function startWriter(file: string, tag: string, count: number): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, tag, String(count)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('ready') && resolve())
    void exited.then((code) => reject(new Error(`the writer exited (${code}) before it was ready`)))
  })
  return { child, exited }
}

describe('the locked JSON file store (credentials and MCP tokens)', () => {
  let home: string
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-json-file-'))
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('loses nothing when two processes and this one change the file at once: every update is a read-modify-write under the lock', async () => {
    const file = join(home, 'list.json')
    const count = 40
    const writers = await Promise.all([startWriter(file, 'a', count), startWriter(file, 'b', count)])
    for (const { child } of writers) child.stdin!.write('go\n')
    const store = listFile(file)
    const here = Array.from({ length: count }, (_, index) => store.update((contents) => {
      contents.items.push(`c-${index}`)
    }))
    await Promise.all(here)
    assert.deepEqual(await Promise.all(writers.map(({ exited }) => exited)), [0, 0])
    const { items } = await store.read()
    assert.equal(items.length, 3 * count)
    for (const tag of ['a', 'b', 'c']) {
      // Each writer's own updates land in the order it made them.
      assert.deepEqual(items.filter((item) => item.startsWith(`${tag}-`)), Array.from({ length: count }, (_, index) => `${tag}-${index}`))
    }
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.deepEqual((await readdir(home)).filter((name) => name.startsWith('list.json')), ['list.json'], 'no temp file or lock is left behind')
  })

  it('names a damaged file and never writes over it: not JSON, or JSON of another shape', async () => {
    for (const [name, text, problem] of [['broken.json', '{ "items": [', /is not valid JSON; remove it\./], ['shape.json', '{ "things": [] }', /does not have the expected shape \(\{ "items": \[\.\.\.\] \}\); remove it\./]] as const) {
      const file = join(home, name)
      await writeFile(file, text, { mode: 0o600 })
      const store = listFile(file)
      const damaged = (error: any) => error.code === 'JSON_FILE_DAMAGED' && error.details.path === file && error.message.startsWith(`The test list ${file} `) && problem.test(error.message)
      await assert.rejects(store.read(), damaged)
      let changed = false
      await assert.rejects(store.update(() => {
        changed = true
      }), damaged)
      assert.equal(changed, false, 'the change never sees a damaged file')
      assert.equal(await readFile(file, 'utf8'), text)
    }
  })

  it('leaves the file as it is when the change says so, and creates nothing for a read of a missing file', async () => {
    const folder = join(home, 'fresh')
    const store = listFile(join(folder, 'list.json'))
    assert.deepEqual(await store.read(), { items: [] })
    await assert.rejects(stat(folder), { code: 'ENOENT' })
    await store.update(() => false)
    assert.equal((await stat(folder)).mode & 0o777, 0o700)
    assert.deepEqual(await readdir(folder), [])
  })
})
