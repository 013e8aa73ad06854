import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { lstat, lutimes, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as credentials from 'dsh-harness/credentials'
import * as session from 'dsh-harness/session'
import type { SessionService } from 'dsh-harness/session'
import { DEFAULT_LEASE_MS, leaseHolder, takeLease } from '../src/file-lock.js'
import { hostCredentials } from '../../../tests/support/host-credentials.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')

/** A child process that holds the lock of `file` until it is killed. */
async function holdLock(file: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, 'lock-holder.mjs'), file], { stdio: ['pipe', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('held') && resolve())
    child.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before taking the lock`)))
  })
  return child
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

describe('cross-process file lock', () => {
  let home: string
  let ctx: Context
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-lock-'))
    ctx = new Context()
    ctx.plugin(session, { home, lockTimeoutMs: 200 })
    ctx.plugin(credentials, { home, lockTimeoutMs: 200 })
    await ctx.start()
  })
  after(async () => {
    await ctx.stop()
    await rm(home, { recursive: true, force: true })
  })

  it('makes a second process wait, then fail with FILE_LOCK_TIMEOUT naming the holder pid; a killed holder\'s lock is taken over', async () => {
    const sessions = ctx.get('session') as unknown as SessionService
    const log = await sessions.create({ id: 'held' })
    const holder = await holdLock(log.logPath)
    try {
      await assert.rejects(log.append('test/event', {}), (error: any) => error.code === 'FILE_LOCK_TIMEOUT'
        && error.details.holderPid === holder.pid
        && error.message.includes(`is locked by process ${holder.pid}, which did not release it within 200 ms`))
    } finally {
      await killed(holder)
    }
    assert.equal((await log.append('test/event', {})).seq, 1)
    await assert.rejects(lstat(log.logPath + '.lock'), { code: 'ENOENT' })
  })

  it('holds the credential store for one writer at a time, and takes over the lock of a killed one', async () => {
    const store = join(home, 'credentials.json')
    const holder = await holdLock(store)
    try {
      await assert.rejects(hostCredentials(ctx).set('LOCKED_KEY', 'v'), (error: any) => error.code === 'FILE_LOCK_TIMEOUT' && error.message.includes(`The credential store ${store} is locked by process ${holder.pid}`))
    } finally {
      await killed(holder)
    }
    await hostCredentials(ctx).set('LOCKED_KEY', 'v')
    assert.equal((await hostCredentials(ctx).resolve('LOCKED_KEY'))?.value, 'v')
  })

  it('names a lock it cannot identify and how to remove it', async () => {
    const sessions = ctx.get('session') as unknown as SessionService
    const log = await sessions.create({ id: 'unknown-lock' })
    await writeFile(log.logPath + '.lock', 'planted')
    await assert.rejects(log.append('test/event', {}), (error: any) => error.code === 'FILE_LOCK_TIMEOUT'
      && error.message.includes('an owner dsh cannot identify') && error.message.includes(`remove ${log.logPath}.lock`))
    await rm(log.logPath + '.lock')
    assert.equal((await log.append('test/event', {})).seq, 1)
  })
})

describe('leases', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dsh-lease-'))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  const HOUR = 3_600_000
  async function backdate(path: string, ms: number): Promise<void> {
    const when = new Date(Date.now() - ms)
    await lutimes(path, when, when)
  }

  it("holds while its process runs, and nothing from the moment it is killed with kill -9", async () => {
    const path = join(dir, 'killed')
    const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, 'lease-holder.mjs'), path], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise<void>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('held') && resolve())
      child.on('exit', (code) => reject(new Error(`the lease holder exited (${code}) before taking the lease`)))
    })
    const held = await leaseHolder(path)
    assert.equal(held?.pid, child.pid)
    assert.equal(held?.local, true)
    await killed(child)
    assert.equal(await leaseHolder(path), undefined)
  })

  it('runs out when not renewed within its ttl, is renewed to now, and is gone once released', async () => {
    const lease = await takeLease(join(dir, 'own'), 60_000)
    assert.equal((await leaseHolder(lease.path))?.pid, process.pid)
    await backdate(lease.path, 61_000)
    assert.equal(await leaseHolder(lease.path), undefined, 'an expired lease holds nothing, though its process runs')
    await lease.renew()
    assert.equal((await leaseHolder(lease.path))?.pid, process.pid)
    lease.release()
    await assert.rejects(lstat(lease.path), { code: 'ENOENT' })
    lease.release()
  })

  const planted: Array<[string, string, number, boolean]> = [
    // [what, the link's target, how long ago it was renewed, held?]
    ['another host: trusted until its ttl', 'dsh-lease:elsewhere:1:-:60000:abc', 0, true],
    ['another host, not renewed within its ttl', 'dsh-lease:elsewhere:1:-:60000:abc', 2 * 60_000, false],
    ['a ttl over the 24 h cap is judged by the cap', 'dsh-lease:elsewhere:1:-:864000000:abc', 25 * HOUR, false],
    ['a target dsh cannot read: held for the default ttl', 'planted', 0, true],
    ['a target dsh cannot read, older than the default ttl', 'planted', DEFAULT_LEASE_MS + 1000, false],
  ]
  for (const [what, target, ago, held] of planted) {
    it(`judges a lease of ${what}`, async () => {
      const path = join(dir, `planted-${planted.findIndex((row) => row[0] === what)}`)
      await symlink(target, path)
      if (ago) await backdate(path, ago)
      assert.equal((await leaseHolder(path)) !== undefined, held)
    })
  }
})
