import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { lstat, mkdtemp, readdir, readFile, rm, utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as session from 'dsh-harness/session'
import { pruneSessions } from '../src/session/session-catalog.js'

const run = promisify(execFile)

describe('session service', () => {
  let home: string
  let ctx: Context
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-session-'))
    ctx = new Context()
    ctx.plugin(session, { home })
    await ctx.start()
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('stamps seq and time and has the line on disk when append resolves', async () => {
    const s = await ctx.session.create()
    const first = await s.append('tool/call', { tool: 'echo' }, { visibility: 'surface' })
    const second = await s.append('web/test-request', { body: { a: 1 } })
    assert.equal(first.seq, 1)
    assert.equal(second.seq, 2)
    assert.equal(second.visibility, 'log')
    assert.ok(!Number.isNaN(Date.parse(first.time)))
    const lines = (await readFile(join(home, 'sessions', s.id, 'events.jsonl'), 'utf8')).trim().split('\n')
    assert.equal(lines.length, 2)
    assert.deepEqual(JSON.parse(lines[1]), second)
  })

  it('takes JSON data only and names what is not', async () => {
    const s = await ctx.session.create()
    await assert.rejects(s.append('x/y', { when: new Date() } as any), /data\.when is a Date object/)
    await assert.rejects(s.append('x/y', { n: Number.NaN }), /data\.n is NaN/)
    await assert.rejects(s.append('x/y', { f: () => 1 } as any), /data\.f is function/)
    const cyclic: any = {}
    cyclic.self = cyclic
    await assert.rejects(s.append('x/y', cyclic), /circular/)
    await assert.rejects(s.append('Not A Type', {}), /not an event type/)
    assert.deepEqual(await s.read(), [])
  })

  it('is read back from disk after the writing process has exited, with log-only events kept out of the history', async () => {
    const script = `
      import { Context } from 'cordis'
      import * as session from 'dsh-harness/session'
      const ctx = new Context()
      ctx.plugin(session, { home: process.argv[1] })
      await ctx.start()
      const s = await ctx.session.create()
      await s.append('message/user', { text: 'hello' }, { visibility: 'surface' })
      await s.append('web/test-llm-request', { endpoint: 'http://127.0.0.1/v1/messages' })
      await s.append('tool/result', { content: 'done' }, { visibility: 'surface' })
      process.stdout.write(s.id)
      process.exit(0)
    `
    const { stdout: id } = await run(process.execPath, ['--input-type=module', '-e', script, home], { cwd: process.cwd() })
    const events = await ctx.session.read(id)
    assert.deepEqual(events.map((event) => [event.seq, event.type, event.visibility]), [
      [1, 'message/user', 'surface'],
      [2, 'web/test-llm-request', 'log'],
      [3, 'tool/result', 'surface'],
    ])
    const history = await ctx.session.history(id)
    assert.deepEqual(history.map((event) => event.type), ['message/user', 'tool/result'])
    // Reopening continues the sequence.
    const reopened = await ctx.session.open(id)
    assert.equal((await reopened.append('message/user', { text: 'again' }, { visibility: 'surface' })).seq, 4)
  })

  it('keeps concurrent appends in order without gaps', async () => {
    const s = await ctx.session.create()
    await Promise.all(Array.from({ length: 25 }, (_, index) => s.append('test/event', { index })))
    const events = await s.read()
    assert.deepEqual(events.map((event) => event.seq), Array.from({ length: 25 }, (_, index) => index + 1))
  })

  it('refuses ids that could escape the sessions folder', async () => {
    await assert.rejects(ctx.session.open('../../etc'), /not a session id/)
    await assert.rejects(ctx.session.read('a/b'), /not a session id/)
    await assert.rejects(ctx.session.open('missing-session'), /There is no session "missing-session"/)
  })
})

describe('session leases: a session a live process holds is never pruned', () => {
  let home: string
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-session-lease-'))
  })
  after(() => rm(home, { recursive: true, force: true }))

  async function age(id: string): Promise<void> {
    const when = new Date(Date.now() - 40 * 86_400_000)
    await utimes(join(home, 'sessions', id, 'events.jsonl'), when, when)
  }
  const monthAgo = () => new Date(Date.now() - 30 * 86_400_000)

  it('prune leaves a session this process holds open, idle or not (was: removed, and every later append failed), and removes it once the service stops', async () => {
    const holder = new Context()
    holder.plugin(session, { home })
    await holder.start()
    const s = await holder.session.create()
    await s.append('mcp/session-start', { transport: 'stdio' })
    await age(s.id)
    const first = await pruneSessions(home, monthAgo())
    assert.deepEqual(first.removed, [])
    assert.deepEqual(first.held.map((held) => held.id), [s.id])
    assert.equal(first.held[0].heldBy[0].pid, process.pid)
    assert.equal(first.held[0].heldBy[0].local, true)
    assert.equal((await s.append('tool/call', { tool: 'echo' })).seq, 2)

    await holder.stop()
    assert.deepEqual((await readdir(s.dir)).filter((name) => name.startsWith('.lease-')), [], 'stopping the service removes its lease')
    await age(s.id)
    const second = await pruneSessions(home, monthAgo())
    assert.deepEqual(second.removed.map((removed) => removed.id), [s.id])
    await assert.rejects(lstat(s.dir), { code: 'ENOENT' })
  })

  it('renews its lease while it runs', async () => {
    const holder = new Context()
    holder.plugin(session, { home, leaseMs: 1000 })
    await holder.start()
    try {
      const s = await holder.session.create()
      const [name] = (await readdir(s.dir)).filter((entry) => entry.startsWith('.lease-'))
      const taken = (await lstat(join(s.dir, name))).mtimeMs
      // Waits for the renewal itself (every third of leaseMs), however long the machine takes to run it.
      while ((await lstat(join(s.dir, name))).mtimeMs === taken) await new Promise((resolve) => setTimeout(resolve, 50))
    } finally {
      await holder.stop()
    }
  })
})
