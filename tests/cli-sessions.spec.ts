// dsh session list and prune: the real CLI over a temp $DSH_HOME.
import assert from 'node:assert/strict'
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { withFileLock } from '../packages/harness/src/file-lock.js'
import { dsh, onlyJson, tempHome } from './helpers.js'

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
