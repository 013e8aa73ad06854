import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as credentials from 'dsh-harness/credentials'
import { hostCredentials } from '../../../tests/support/host-credentials.js'

const REF = 'DSH_TEST_CREDENTIALS_SPEC'

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
})
