import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import { credentials } from '../../../tests/support/host-services.js'
import { resolveCredential, WebError } from 'dsh-web'
import { hostCredentials } from '../../../tests/support/host-credentials.js'

const REF = 'DSH_TEST_CREDENTIAL_HELPER_KEY'

describe('resolveCredential', () => {
  let home: string
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-cred-'))
  })
  after(async () => {
    delete process.env[REF]
    await rm(home, { recursive: true, force: true })
  })

  it('reads the credentials service on every call when it is mounted', async () => {
    const ctx = new Context()
    ctx.plugin(credentials, { home })
    await new Promise((resolve) => setImmediate(resolve))
    await assert.rejects(resolveCredential(ctx, { providerId: 'p', ref: REF }), (error: unknown) => WebError.is(error) && error.code === 'WEB_PROVIDER_CREDENTIAL_MISSING')
    await hostCredentials(ctx).set(REF, 'first')
    assert.deepEqual(await resolveCredential(ctx, { providerId: 'p', ref: REF }), { value: 'first', source: 'store' })
    await hostCredentials(ctx).set(REF, 'second')
    assert.equal((await resolveCredential(ctx, { providerId: 'p', ref: REF })).value, 'second')
    // The literal is the last resort, behind the service.
    assert.equal((await resolveCredential(ctx, { providerId: 'p', ref: REF, literal: 'literal' })).value, 'second')
    await hostCredentials(ctx).unset(REF)
    assert.deepEqual(await resolveCredential(ctx, { providerId: 'p', ref: REF, literal: 'literal' }), { value: 'literal', source: 'config' })
  })

  it('uses the process environment only when no credentials service is mounted', async () => {
    const ctx = new Context()
    await assert.rejects(resolveCredential(ctx, { providerId: 'p', ref: REF }), WebError)
    process.env[REF] = 'from-env'
    try {
      assert.deepEqual(await resolveCredential(ctx, { providerId: 'p', ref: REF }), { value: 'from-env', source: 'environment' })
    } finally {
      delete process.env[REF]
    }
  })

  it('says the three ways to supply a missing credential', async () => {
    const error = await resolveCredential(new Context(), { providerId: 'deepseek-official', ref: REF }).catch((error) => error)
    assert.equal(error.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
    assert.match(error.message, new RegExp(`dsh credentials set ${REF}`))
    assert.match(error.message, /environment variable/)
    assert.match(error.message, /`apiKey`/)
    assert.equal(error.details.credential, REF)
  })

  it('ends as WEB_ABORTED when the call is cancelled while the store is slow', async () => {
    const ctx = new Context()
    let release!: () => void
    ctx.set('credentials', { resolve: () => new Promise((resolve) => { release = () => resolve({ value: 'late', source: 'store' }) }) })
    const controller = new AbortController()
    const pending = resolveCredential(ctx, { providerId: 'p', ref: REF, signal: controller.signal })
    controller.abort()
    await assert.rejects(pending, (error: unknown) => WebError.is(error) && error.code === 'WEB_ABORTED')
    release()
  })

  it('turns a failing credentials service into a typed error with its message, not a bug', async () => {
    const ctx = new Context()
    ctx.set('credentials', { resolve: () => { throw new Error('The credential store /x/credentials.json is not valid JSON; fix or remove it.') } })
    const error = await resolveCredential(ctx, { providerId: 'p', ref: REF }).catch((error) => error)
    assert.ok(WebError.is(error))
    assert.equal(error.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
    assert.match(error.message, /could not read its credential .*not valid JSON; fix or remove it/)
  })
})
