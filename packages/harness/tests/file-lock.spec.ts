import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { lstat, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as credentials from 'dsh-harness/credentials'
import * as session from 'dsh-harness/session'
import type { SessionService } from 'dsh-harness/session'
import { hostCredentials } from '../../../tests/support/host-credentials.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')

/** A child process that holds the lock of `file` until it is killed. */
async function holdLock(file: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(FIXTURES, 'lock-holder.mjs'), file], { stdio: ['pipe', 'pipe', 'inherit'] })
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
