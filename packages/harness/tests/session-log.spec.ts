import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { appendFile, chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as session from 'dsh-harness/session'
import type { SessionService } from 'dsh-harness/session'
import { dsh } from '../../../tests/helpers.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')

async function sessionsAt(home: string, config: Record<string, unknown> = {}): Promise<{ ctx: Context; sessions: SessionService }> {
  const ctx = new Context()
  ctx.plugin(session, { home, ...config })
  await ctx.start()
  return { ctx, sessions: ctx.get('session') as unknown as SessionService }
}

/** A child that appends events to one session and reports each acknowledged seq. */
function startWriter(home: string, id: string, count: number, payloadChars: number): { child: ChildProcess; acks: number[]; exited: Promise<number | null>; ackCount(n: number): Promise<void> } {
  const child = spawn(process.execPath, [join(FIXTURES, 'session-writer.mjs'), home, id, String(count), String(payloadChars)], { stdio: ['ignore', 'pipe', 'pipe'] })
  const acks: number[] = []
  const waiters: Array<[number, () => void]> = []
  let buffered = ''
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop()!
    for (const line of lines) if (line.startsWith('ack ')) acks.push(Number(line.slice(4)))
    for (const [n, wake] of waiters) if (acks.length >= n) wake()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    child,
    acks,
    exited: exited.then((code) => {
      if (code !== 0 && code !== null) throw new Error(`writer exited ${code}: ${stderr}`)
      return code
    }),
    ackCount: (n) => new Promise((resolve, reject) => {
      if (acks.length >= n) return resolve()
      waiters.push([n, resolve])
      exited.then(() => acks.length >= n ? resolve() : reject(new Error(`writer ended after ${acks.length} acks: ${stderr}`)))
    }),
  }
}

function lines(text: string): string[] {
  return text.split('\n').filter(Boolean)
}

describe('session log durability', () => {
  let home: string
  let ctx: Context
  let sessions: SessionService
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-session-log-'))
    ;({ ctx, sessions } = await sessionsAt(home))
  })
  after(async () => {
    await ctx.stop()
    await rm(home, { recursive: true, force: true })
  })

  it('keeps every acknowledged event when the writer is killed with SIGKILL mid-stream, and stays appendable', async () => {
    const writer = startWriter(home, 'killed', 0, 20_000)
    await writer.ackCount(40)
    writer.child.kill('SIGKILL')
    await writer.exited
    const acknowledged = [...writer.acks]
    const report = await sessions.inspect('killed')
    assert.deepEqual(report.problems.filter((problem) => problem.kind !== 'torn'), [], 'at worst the unacknowledged last line is torn')
    const seqs = report.events.map((event) => event.seq)
    for (const seq of acknowledged) assert.ok(seqs.includes(seq), `acknowledged seq ${seq} is in the log`)
    assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, index) => index + 1))
    // The killed writer may have held the lock: the next append takes it over and continues the count.
    const reopened = await sessions.open('killed')
    const next = await reopened.append('test/event', { after: 'kill' })
    assert.equal(next.seq, seqs.length + 1)
    assert.deepEqual((await reopened.inspect()).problems.filter((problem) => problem.kind !== 'torn-kept'), [])
  })

  it('gives two processes appending 200 events each to one session 400 unique, gap-free seqs', async () => {
    const first = startWriter(home, 'shared', 200, 100)
    const second = startWriter(home, 'shared', 200, 100)
    await Promise.all([first.exited, second.exited])
    assert.equal(first.acks.length + second.acks.length, 400)
    assert.deepEqual([...first.acks, ...second.acks].sort((a, b) => a - b), Array.from({ length: 400 }, (_, index) => index + 1))
    const events = await sessions.read('shared')
    assert.deepEqual(events.map((event) => event.seq), Array.from({ length: 400 }, (_, index) => index + 1))
    assert.equal(new Set(events.map((event: any) => `${event.data.writer}:${event.data.index}`)).size, 400)
  })

  it('shows a log whose last line is torn, with the report, and the next append keeps the torn bytes in events.jsonl.torn', async () => {
    const log = await sessions.create({ id: 'torn' })
    for (let index = 0; index < 3; index++) await log.append('test/event', { index })
    const torn = '{"seq":4,"time":"2026-01-01T00:00:00.000Z","type":"test/ev'
    await appendFile(log.logPath, torn)
    const report = await sessions.inspect('torn')
    assert.deepEqual(report.events.map((event) => event.seq), [1, 2, 3])
    assert.deepEqual(report.problems.map((problem) => [problem.kind, problem.line]), [['torn', 4]])
    assert.deepEqual((await sessions.read('torn')).map((event) => event.seq), [1, 2, 3])
    const shown = await dsh(['session', 'show', 'torn'], { home })
    assert.equal(shown.code, 0, shown.stderr)
    assert.match(shown.stderr, /warning: session torn: line 4, the last \(\d+ bytes\), is torn/)
    assert.match(shown.stdout, /#3 .* test\/event/)
    const next = await log.append('test/event', { index: 3 })
    assert.equal(next.seq, 4)
    assert.deepEqual(lines(await readFile(log.logPath, 'utf8')).map((line) => JSON.parse(line).seq), [1, 2, 3, 4])
    assert.equal(await readFile(log.logPath + '.torn', 'utf8'), torn + '\n')
    assert.equal((await stat(log.logPath + '.torn')).mode & 0o777, 0o600)
    assert.deepEqual((await sessions.inspect('torn')).problems.map((problem) => problem.kind), ['torn-kept'])
  })

  it('shows a log without its final newline, and never glues the next event onto its last line', async () => {
    const log = await sessions.create({ id: 'no-newline' })
    const written = [1, 2, 3].map((seq) => JSON.stringify({ seq, time: new Date().toISOString(), type: 'test/event', visibility: 'log', data: { seq } }))
    await writeFile(log.logPath, written.join('\n'))
    const report = await sessions.inspect('no-newline')
    assert.deepEqual(report.events.map((event) => event.seq), [1, 2, 3])
    assert.deepEqual(report.problems.map((problem) => [problem.kind, problem.line]), [['unterminated', 3]])
    assert.equal((await log.append('test/event', { seq: 4 })).seq, 4)
    const text = await readFile(log.logPath, 'utf8')
    assert.deepEqual(text.split('\n').slice(0, 3), written)
    assert.deepEqual(lines(text).map((line) => JSON.parse(line).seq), [1, 2, 3, 4])
    assert.deepEqual((await sessions.inspect('no-newline')).problems, [])
    await assert.rejects(lstat(log.logPath + '.torn'), { code: 'ENOENT' })
  })

  it('reports a damaged line in the middle with its line number, shows the rest, and still appends', async () => {
    const log = await sessions.create({ id: 'damaged' })
    for (let index = 0; index < 3; index++) await log.append('test/event', { index })
    const text = lines(await readFile(log.logPath, 'utf8'))
    await writeFile(log.logPath, [text[0], 'not json at all', text[1], text[2]].join('\n') + '\n')
    const report = await sessions.inspect('damaged')
    assert.deepEqual(report.events.map((event) => event.seq), [1, 2, 3])
    assert.deepEqual(report.problems.map((problem) => [problem.kind, problem.line]), [['damaged', 2]])
    await assert.rejects(sessions.read('damaged'), (error: any) => error.code === 'SESSION_LOG_DAMAGED' && /line 2 /.test(error.message))
    const shown = await dsh(['session', 'show', 'damaged', '--json'], { home })
    assert.equal(shown.code, 0, shown.stderr)
    assert.deepEqual(JSON.parse(shown.stdout).events.map((event: any) => event.seq), [1, 2, 3])
    assert.match(shown.stderr, /line 2 \(15 bytes\) is not a JSON event/)
    assert.equal((await log.append('test/event', {})).seq, 4)
  })

  it('stores an event over the size cap as artifacts with correct hashes, and keeps its log line small', async () => {
    const log = await sessions.create({ id: 'capped' })
    const code = 'console.log("a")\n'.repeat(12_000) + 'é😀'
    const event: any = await log.append('tool/call', { tool: 'run_code', input: { code, note: 'small' } }, { visibility: 'surface' })
    const line = (await readFile(log.logPath, 'utf8')).trimEnd()
    assert.ok(Buffer.byteLength(line) < 4096, `the line is ${Buffer.byteLength(line)} bytes`)
    const stored: any = JSON.parse(line)
    assert.deepEqual(stored, event)
    assert.deepEqual(stored.externalized, ['/input/code'])
    assert.equal(stored.data.input.note, 'small')
    const reference = stored.data.input.code
    assert.equal(reference.preview, code.slice(0, 500))
    assert.match(reference.artifact.path, /^artifacts\/event-[0-9a-f]{8}-input-code-1\.txt$/)
    const file = join(log.dir, reference.artifact.path)
    const content = await readFile(file)
    assert.equal(content.toString('utf8'), code)
    assert.equal(reference.artifact.bytes, content.length)
    assert.equal(reference.artifact.sha256, createHash('sha256').update(content).digest('hex'))
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    assert.equal((await stat(join(log.dir, 'artifacts'))).mode & 0o777, 0o700)

    // Many small values: the whole data goes to one JSON file.
    const numbers = Array.from({ length: 20_000 }, (_, index) => index)
    const whole: any = await log.append('test/event', { numbers })
    assert.deepEqual(whole.externalized, [''])
    assert.deepEqual(JSON.parse(await readFile(join(log.dir, whole.data.artifact.path), 'utf8')), { numbers })
    assert.ok(Buffer.byteLength(JSON.stringify(whole)) < 4096)
  })

  it('takes the cap from the session row (maxEventBytes)', async () => {
    const small = await sessionsAt(home, { maxEventBytes: 4096 })
    try {
      const log = await small.sessions.open('capped-row', { create: true })
      const event: any = await log.append('test/event', { text: 'y'.repeat(5000) })
      assert.deepEqual(event.externalized, ['/text'])
      const kept: any = await log.append('test/event', { text: 'y'.repeat(3000) })
      assert.equal(kept.externalized, undefined)
      assert.equal(kept.data.text.length, 3000)
    } finally {
      await small.ctx.stop()
    }
  })

  it('refuses symbolic links planted where the log, the session folder and the artifacts go', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'dsh-elsewhere-'))
    try {
      const target = join(elsewhere, 'target.txt')
      await writeFile(target, 'not yours\n')
      await mkdir(join(home, 'sessions', 'linked-log'), { mode: 0o700 })
      await symlink(target, join(home, 'sessions', 'linked-log', 'events.jsonl'))
      await assert.rejects(sessions.open('linked-log'), (error: any) => error.code === 'UNSAFE_PATH' && /events\.jsonl is a symbolic link/.test(error.message))
      await assert.rejects(sessions.inspect('linked-log'), { code: 'UNSAFE_PATH' })

      await symlink(elsewhere, join(home, 'sessions', 'linked-folder'))
      await assert.rejects(sessions.open('linked-folder', { create: true }), (error: any) => error.code === 'UNSAFE_PATH' && /linked-folder is a symbolic link/.test(error.message))

      const log = await sessions.create({ id: 'linked-artifacts' })
      await symlink(elsewhere, join(log.dir, 'artifacts'))
      await assert.rejects(log.append('test/event', { big: 'z'.repeat(100_000) }), (error: any) => error.code === 'UNSAFE_PATH' && /artifacts is a symbolic link/.test(error.message))
      await assert.rejects(sessions.open('linked-artifacts'), { code: 'UNSAFE_PATH' })
      assert.deepEqual(await readdir(elsewhere), ['target.txt'])
      assert.equal(await readFile(target, 'utf8'), 'not yours\n')
      assert.deepEqual(await log.read(), [])
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })

  it('corrects lax modes of an existing session folder and log to 0700 and 0600', async () => {
    const log = await sessions.create({ id: 'lax' })
    await log.append('test/event', {})
    await chmod(log.dir, 0o755)
    await chmod(log.logPath, 0o644)
    const reopened = await sessions.open('lax')
    assert.equal((await stat(reopened.dir)).mode & 0o777, 0o700)
    assert.equal((await stat(reopened.logPath)).mode & 0o777, 0o600)
  })

  it('refuses a world-writable $DSH_HOME and says how to fix it', async () => {
    const open = await mkdtemp(join(tmpdir(), 'dsh-open-home-'))
    const other = await sessionsAt(open)
    try {
      await chmod(open, 0o777)
      await assert.rejects(other.sessions.create(), (error: any) => error.code === 'UNSAFE_PATH' && error.message.includes(`Fix: chmod 700 ${open}`) && /writable by group and others \(mode 0777\)/.test(error.message))
      const shown = await dsh(['session', 'show', 'any'], { home: open })
      assert.notEqual(shown.code, 0)
      assert.match(shown.stderr, new RegExp(`chmod 700 ${open}`))
      await chmod(open, 0o700)
      assert.equal((await (await other.sessions.create()).append('test/event', {})).seq, 1)
    } finally {
      await other.ctx.stop()
      await rm(open, { recursive: true, force: true })
    }
  })
})

describe('session log on a full disk', () => {
  const mountPoint = join(tmpdir(), `dsh-full-disk-${process.pid}`)
  let mounted = false
  let skip: string | false = false
  before(async () => {
    await mkdir(mountPoint, { recursive: true })
    try {
      await promisify(execFile)('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', mountPoint])
      mounted = true
    } catch (error: any) {
      skip = `mounting a 256 KiB tmpfs failed (needs root and mount rights): ${String(error?.stderr || error?.message).trim()}`
    }
  })
  after(async () => {
    if (mounted) await promisify(execFile)('umount', [mountPoint])
    await rm(mountPoint, { recursive: true, force: true })
  })

  it('fails an append on a full disk with SESSION_WRITE_FAILED, and appends again once space is freed', async (t) => {
    if (skip) return t.skip(skip)
    const home = join(mountPoint, 'home')
    const { ctx, sessions } = await sessionsAt(home)
    try {
      const log = await sessions.create({ id: 'full' })
      for (let index = 0; index < 5; index++) await log.append('test/event', { index, text: 'a'.repeat(1000) })
      const before = (await stat(log.logPath)).size
      // Fill the disk to the brim.
      const filler = join(mountPoint, 'filler')
      const block = Buffer.alloc(4096, 1)
      for (;;) {
        try {
          await appendFile(filler, block)
        } catch (error: any) {
          assert.equal(error.code, 'ENOSPC')
          break
        }
      }
      for (;;) {
        try {
          await appendFile(filler, 'x')
        } catch {
          break
        }
      }
      const failure: any = await log.append('test/event', { index: 5, text: 'b'.repeat(20_000) }).then(() => undefined, (error) => error)
      assert.ok(failure, 'the append on a full disk failed')
      assert.equal(failure.code, 'SESSION_WRITE_FAILED')
      assert.match(failure.message, /no space is left on the device \(ENOSPC\)/)
      assert.ok(failure.message.includes(`Fix: free space on the disk that holds ${log.dir}`), failure.message)
      assert.equal((await stat(log.logPath)).size, before, 'the partly written line was cut back off')
      assert.deepEqual((await sessions.inspect('full')).problems, [])
      await rm(filler)
      const next = await log.append('test/event', { index: 5, text: 'b'.repeat(20_000) })
      assert.equal(next.seq, 6)
      const events = await sessions.read('full')
      assert.deepEqual(events.map((event: any) => [event.seq, event.data.index]), [[1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5]])
    } finally {
      await ctx.stop()
    }
  })
})
