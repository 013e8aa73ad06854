import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmod, chown, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as credentials from 'dsh-harness/credentials'
import { credentialReferences } from 'dsh-harness/credentials'
import { hostCredentials } from '../../../tests/support/host-credentials.js'

const REF = 'DSH_TEST_CREDENTIALS_SPEC'
const SETTER = join(import.meta.dirname, 'fixtures', 'credential-setter.mjs')

describe('credentials service', () => {
  let home: string
  let ctx: Context
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-credentials-'))
    ctx = new Context()
    ctx.plugin(credentials, { home })
    await ctx.start()
  })
  after(async () => {
    delete process.env[REF]
    await rm(home, { recursive: true, force: true })
  })

  it('returns what was set, then what it was rotated to, then nothing once unset', async () => {
    assert.equal(await hostCredentials(ctx).resolve(REF), undefined)
    await hostCredentials(ctx).set(REF, 'one')
    assert.deepEqual(await hostCredentials(ctx).resolve(REF), { value: 'one', source: 'store' })
    await hostCredentials(ctx).set(REF, 'two')
    assert.deepEqual(await hostCredentials(ctx).resolve(REF), { value: 'two', source: 'store' })
    assert.equal(await hostCredentials(ctx).unset(REF), true)
    assert.equal(await hostCredentials(ctx).resolve(REF), undefined)
    assert.equal(await hostCredentials(ctx).unset(REF), false)
  })

  it('sees a value another process wrote to the store (no cache)', async () => {
    const other = new Context()
    other.plugin(credentials, { home })
    await other.start()
    await hostCredentials(other).set(REF, 'written-elsewhere')
    assert.equal((await hostCredentials(ctx).resolve(REF))?.value, 'written-elsewhere')
    await hostCredentials(other).unset(REF)
  })

  it('keeps the store file at mode 0600 and leaves no temp files', async () => {
    await hostCredentials(ctx).set(REF, 'secret-value')
    const file = join(home, 'credentials.json')
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.deepEqual((await readdir(home)).filter((name) => name.endsWith('.tmp')), [])
    const stored = JSON.parse(await readFile(file, 'utf8'))
    assert.equal(stored.credentials[REF].value, 'secret-value')
  })

  it('lets the environment win over the store, and says so without the value', async () => {
    await hostCredentials(ctx).set(REF, 'stored')
    process.env[REF] = 'from-env'
    try {
      assert.deepEqual(await hostCredentials(ctx).resolve(REF), { value: 'from-env', source: 'environment' })
      const description = await hostCredentials(ctx).describe(REF)
      assert.deepEqual(description, { name: REF, configured: true, source: 'environment', shadowed: true, value: '<redacted>' })
      assert.ok(!JSON.stringify(await hostCredentials(ctx).list()).includes('from-env'))
      assert.ok(!JSON.stringify(await hostCredentials(ctx).list()).includes('stored"'))
    } finally {
      delete process.env[REF]
    }
  })

  it('serialises concurrent writes so that none is lost', async () => {
    const names = Array.from({ length: 12 }, (_, index) => `${REF}_${index}`)
    await Promise.all(names.map((name, index) => hostCredentials(ctx).set(name, `v${index}`)))
    const values = await Promise.all(names.map((name) => hostCredentials(ctx).resolve(name)))
    assert.deepEqual(values.map((value) => value?.value), names.map((_, index) => `v${index}`))
  })

  it('refuses bad names and empty or multi-line values with a message', async () => {
    await assert.rejects(hostCredentials(ctx).set('not a name', 'x'), /not a credential name/)
    await assert.rejects(hostCredentials(ctx).resolve('../../etc/passwd'), /not a credential name/)
    await assert.rejects(hostCredentials(ctx).set(REF, ''), /empty/)
    await assert.rejects(hostCredentials(ctx).set(REF, 'a\nb'), /line break/)
  })

  it('keeps every key when 8 processes each set 25 keys at once', async () => {
    const shared = await mkdtemp(join(tmpdir(), 'dsh-credentials-shared-'))
    try {
      const prefixes = Array.from({ length: 8 }, (_, index) => `PROCESS_${index}`)
      const outputs = await Promise.all(prefixes.map((prefix) => promisify(execFile)(process.execPath, [SETTER, shared, prefix, '25'])))
      assert.deepEqual(outputs.map((output) => output.stdout), prefixes.map(() => 'done\n'))
      const stored = JSON.parse(await readFile(join(shared, 'credentials.json'), 'utf8')).credentials
      assert.equal(Object.keys(stored).length, 200)
      for (const prefix of prefixes) {
        for (let index = 0; index < 25; index++) assert.equal(stored[`${prefix}_${index}`]?.value, `value-${prefix}-${index}`)
      }
      assert.deepEqual((await readdir(shared)).sort(), ['credentials.json'])
    } finally {
      await rm(shared, { recursive: true, force: true })
    }
  })

  it('refuses a $DSH_HOME or a store file other users can write, saying how to fix it, as ssh does with its keys', async () => {
    await hostCredentials(ctx).set(REF, 'guarded')
    await chmod(home, 0o777)
    try {
      await assert.rejects(hostCredentials(ctx).resolve(REF), (error: any) => error.code === 'UNSAFE_PATH' && error.message.includes(`Fix: chmod 700 ${home}`))
      await assert.rejects(hostCredentials(ctx).set(REF, 'other'), (error: any) => error.code === 'UNSAFE_PATH')
    } finally {
      await chmod(home, 0o700)
    }
    const file = join(home, 'credentials.json')
    await chmod(file, 0o620)
    await assert.rejects(hostCredentials(ctx).resolve(REF), (error: any) => error.code === 'UNSAFE_PATH'
      && /credentials\.json is writable by group \(mode 0620\)/.test(error.message) && error.message.includes(`Fix: chmod 600 ${file}`))
    await chmod(file, 0o600)
    await chown(file, 4242, 4242)
    await assert.rejects(hostCredentials(ctx).resolve(REF), (error: any) => error.code === 'UNSAFE_PATH' && /owned by uid 4242, not by you/.test(error.message))
    await chown(file, process.getuid!(), process.getgid!())
    // Readable by others only: corrected to 0600 rather than refused.
    await chmod(file, 0o644)
    assert.equal((await hostCredentials(ctx).resolve(REF))?.value, 'guarded')
    assert.equal((await stat(file)).mode & 0o777, 0o600)
  })

  it('refuses a store file that is a symbolic link', async () => {
    const linked = await mkdtemp(join(tmpdir(), 'dsh-credentials-linked-'))
    try {
      const target = join(linked, 'elsewhere.json')
      await writeFile(target, JSON.stringify({ version: 1, credentials: { [REF]: { value: 'planted', updatedAt: '' } } }), { mode: 0o600 })
      await symlink(target, join(linked, 'credentials.json'))
      const other = new Context()
      other.plugin(credentials, { home: linked })
      await other.start()
      await assert.rejects(hostCredentials(other).resolve(REF), (error: any) => error.code === 'UNSAFE_PATH' && /credentials\.json is a symbolic link/.test(error.message))
      await other.stop()
    } finally {
      await rm(linked, { recursive: true, force: true })
    }
  })
})

describe('credentialReferences', () => {
  it('finds every key that names a credential, nested ones by their path, and nothing in a disabled row', () => {
    const references = credentialReferences([
      { id: 'search', status: 'mounted', config: { apiKeyEnv: 'SEARCH_KEY', apiKey: '<redacted>', proxy: { url: 'http://127.0.0.1:9', credential: 'PROXY_AUTH' } } },
      { id: 'store', status: 'failed', config: { urlCredential: 'STORE_URL', passwordCredential: 'STORE_PASSWORD', keyPrefix: 'dsh:' } },
      { id: 'mirrors', status: 'mounted', config: { upstreams: [{ authEnv: 'MIRROR_AUTH' }, { authEnv: 'SEARCH_KEY' }] } },
      { id: 'off', status: 'disabled', config: { apiKeyEnv: 'NEVER_LISTED' } },
      { id: 'plain', status: 'mounted', config: { environment: 'production', baseURL: 'http://127.0.0.1:9' } },
    ])
    assert.deepEqual(Object.fromEntries(references), {
      SEARCH_KEY: [{ row: 'search', key: 'apiKeyEnv' }, { row: 'mirrors', key: 'upstreams[1].authEnv' }],
      PROXY_AUTH: [{ row: 'search', key: 'proxy.credential' }],
      STORE_URL: [{ row: 'store', key: 'urlCredential' }],
      STORE_PASSWORD: [{ row: 'store', key: 'passwordCredential' }],
      MIRROR_AUTH: [{ row: 'mirrors', key: 'upstreams[0].authEnv' }],
    })
  })
})
