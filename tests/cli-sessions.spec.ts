// dsh session list and prune: the real CLI over a temp $DSH_HOME.
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { withFileLock } from '../packages/harness/src/file-lock.js'
import { CLI, dsh, LOOPBACK_ONLY, onlyJson, ROOT, tempHome } from './helpers.js'

const DAY = 86_400_000

/** A session log as dsh mcp --http starts one for a token (0700 folder, 0600 log). */
async function writeTokenSession(home: string, id: string, token: string): Promise<void> {
  const dir = join(home, 'sessions', id)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const event = { seq: 1, time: '2026-01-02T03:04:05.000Z', type: 'mcp/session-start', visibility: 'log', data: { transport: 'http', token, address: 'http://127.0.0.1:1/mcp', pid: 1 } }
  await writeFile(join(dir, 'events.jsonl'), JSON.stringify(event) + '\n', { mode: 0o600 })
}

async function age(home: string, id: string, days: number): Promise<void> {
  const when = new Date(Date.now() - days * DAY)
  await utimes(join(home, 'sessions', id, 'events.jsonl'), when, when)
}

describe('dsh session list and prune', () => {
  let home: string
  let echo: string
  before(async () => {
    home = await tempHome()
    echo = join(home, 'echo.cordis.yml')
    await writeFile(echo, '- id: echo\n  name: dsh-test-plugins/echo-tool\n')
    for (const id of ['old-one', 'old-locked', 'fresh']) {
      const called = await dsh(['call', 'echo', '{"text":"hi"}', '--session', id, '--config', echo], { home })
      assert.equal(called.code, 0, called.stderr)
    }
    await writeTokenSession(home, 'token-ci', 'ci-agent')
    await writeTokenSession(home, 'token-other', 'other')
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('lists every session with its start, events and size; --token keeps those of one dsh mcp --http token', async () => {
    const listed = onlyJson(await dsh(['session', 'list', '--json'], { home }))
    const byId = Object.fromEntries(listed.sessions.map((session: any) => [session.id, session]))
    assert.deepEqual(Object.keys(byId).sort(), ['fresh', 'old-locked', 'old-one', 'token-ci', 'token-other'])
    assert.equal(byId['old-one'].events, 2)
    assert.equal(byId['old-one'].bytes, (await stat(join(home, 'sessions', 'old-one', 'events.jsonl'))).size)
    assert.match(byId['old-one'].started, /^\d{4}-\d\d-\d\dT/)
    assert.deepEqual(byId['token-ci'].mcp, { transport: 'http', token: 'ci-agent' })
    const ci = onlyJson(await dsh(['session', 'list', '--json', '--token', 'ci-agent'], { home }))
    assert.deepEqual(ci.sessions.map((session: any) => session.id), ['token-ci'])
    const human = await dsh(['session', 'list', '--token', 'ci-agent'], { home })
    assert.match(human.stdout, /^id +started +events +size +via\ntoken-ci +2026-01-02T03:04:05\.000Z +1 +\d+ B +mcp http token ci-agent\n$/)
  })

  it('prune --dry-run says what it would remove and removes nothing; prune removes old sessions, never one whose lock a live process holds', async () => {
    for (const id of ['old-one', 'old-locked', 'token-ci', 'token-other']) await age(home, id, 40)
    const dry = await dsh(['session', 'prune', '--older-than', '30d', '--dry-run'], { home })
    assert.equal(dry.code, 0, dry.stderr)
    assert.match(dry.stdout, /^would remove old-one /m)
    assert.match(dry.stdout, /Would remove 4 session\(s\).*Nothing was removed \(--dry-run\)\./)
    await stat(join(home, 'sessions', 'old-one', 'events.jsonl'))

    // This test process holds old-locked's lock while dsh prunes, as a writer appending to it would.
    const pruned = await withFileLock(join(home, 'sessions', 'old-locked', 'events.jsonl'), () => dsh(['session', 'prune', '--older-than', '30d', '--json'], { home }))
    const result = onlyJson(pruned)
    assert.deepEqual(result.removed.map((session: any) => session.id).sort(), ['old-one', 'token-ci', 'token-other'])
    assert.deepEqual(result.inUse.map((session: any) => session.id), ['old-locked'])
    await assert.rejects(stat(join(home, 'sessions', 'old-one')), { code: 'ENOENT' })
    await stat(join(home, 'sessions', 'old-locked', 'events.jsonl'))
    await stat(join(home, 'sessions', 'fresh', 'events.jsonl'))
  })

  it('refuses an age it cannot read, with the forms it takes (exit 2)', async () => {
    const result = await dsh(['session', 'prune', '--older-than', '30 days'], { home })
    assert.equal(result.code, 2)
    assert.match(result.stderr, /--older-than takes a whole number of minutes, hours, days or weeks, like 90m, 12h, 30d or 8w/)
    const missing = await dsh(['session', 'prune'], { home })
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /--older-than/)
  })
})

describe('dsh session prune and a live server', () => {
  let home: string
  let echo: string
  before(async () => {
    home = await tempHome()
    echo = join(home, 'echo.cordis.yml')
    await writeFile(echo, '- id: echo\n  name: dsh-test-plugins/echo-tool\n')
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('keeps the session of an idle dsh mcp server, which still answers (was: removed, and every later call failed); once the server is killed with kill -9, removes it', async () => {
    const env = Object.fromEntries(Object.entries({ ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home }).filter(([, value]) => value !== undefined)) as Record<string, string>
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--preset', 'minimal', '--config', echo], cwd: ROOT, env, stderr: 'pipe' })
    // The server names its session on stderr once it is open (and leased).
    const announced = new Promise<string>((resolve) => {
      let text = ''
      transport.stderr!.on('data', (chunk) => {
        text += String(chunk)
        const found = /; session (\S+) at /.exec(text)
        if (found) resolve(found[1])
      })
    })
    const client = new Client({ name: 'dsh-test-client', version: '0.0.0' })
    await client.connect(transport)
    const pid = transport.pid!
    try {
      const id = await announced
      await age(home, id, 40)
      const pruned = onlyJson(await dsh(['session', 'prune', '--older-than', '30d', '--json'], { home }))
      assert.deepEqual(pruned.removed, [])
      assert.deepEqual(pruned.held.map((session: any) => session.id), [id])
      assert.equal(pruned.held[0].heldBy[0].pid, pid)
      const human = await dsh(['session', 'prune', '--older-than', '30d'], { home })
      assert.match(human.stdout, new RegExp(`^kept ${id}: held open by process ${pid} \\(lease until `, 'm'))
      const answer: any = await client.callTool({ name: 'echo', arguments: { text: 'still here' } })
      assert.equal(answer.isError, false, JSON.stringify(answer))
      assert.match(JSON.stringify(answer.content), /still here/)

      const exited = new Promise((resolve) => transport.onclose = () => resolve(undefined))
      process.kill(pid, 'SIGKILL')
      await exited
      await age(home, id, 40)
      const after = onlyJson(await dsh(['session', 'prune', '--older-than', '30d', '--json'], { home }))
      assert.deepEqual(after.removed.map((session: any) => session.id), [id])
      assert.deepEqual(after.held, [])
      await assert.rejects(stat(join(home, 'sessions', id)), { code: 'ENOENT' })
    } finally {
      await client.close().catch(() => {})
    }
  })
})

describe('dsh session list and prune never leave $DSH_HOME', () => {
  let home: string
  let outside: string
  before(async () => {
    home = await tempHome()
    outside = await mkdtemp(join(tmpdir(), 'dsh-outside-'))
    await mkdir(join(outside, 'victim'), { mode: 0o700 })
    await writeFile(join(outside, 'victim', 'events.jsonl'), '{"seq":1,"time":"2020-01-01T00:00:00.000Z","type":"x/y","visibility":"log","data":null}\n', { mode: 0o600 })
    const when = new Date(Date.now() - 400 * DAY)
    await utimes(join(outside, 'victim', 'events.jsonl'), when, when)
  })
  after(async () => {
    await rm(home, { recursive: true, force: true })
    await rm(outside, { recursive: true, force: true })
  })

  it('refuses a sessions folder that is a symbolic link, and leaves its target alone (was: prune removed a folder outside $DSH_HOME)', async () => {
    await symlink(outside, join(home, 'sessions'))
    try {
      for (const args of [['session', 'list'], ['session', 'prune', '--older-than', '30d']]) {
        const result = await dsh(args, { home })
        assert.equal(result.code, 1, result.stdout)
        assert.match(result.stderr, new RegExp(`The sessions folder ${join(home, 'sessions')} is a symbolic link.*rm ${join(home, 'sessions')}`))
      }
      assert.deepEqual(await readdir(join(outside, 'victim')), ['events.jsonl'])
    } finally {
      await rm(join(home, 'sessions'))
    }
  })

  it('refuses a name in the sessions folder that is a symbolic link, and leaves its target alone', async () => {
    await mkdir(join(home, 'sessions'), { mode: 0o700 })
    await symlink(join(outside, 'victim'), join(home, 'sessions', 'planted'))
    for (const args of [['session', 'list', '--json'], ['session', 'prune', '--older-than', '30d', '--json']]) {
      const result = await dsh(args, { home })
      assert.equal(result.code, 1, result.stdout)
      const error = JSON.parse(result.stdout).error
      assert.equal(error.code, 'UNSAFE_PATH')
      assert.match(error.message, new RegExp(`${join(home, 'sessions', 'planted')} is a symbolic link \\(to ${join(outside, 'victim')}\\).*rm ${join(home, 'sessions', 'planted')}`))
    }
    assert.deepEqual(await readdir(join(outside, 'victim')), ['events.jsonl'])
  })
})
