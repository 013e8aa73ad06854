import assert from 'node:assert/strict'
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { MemoryStateStore } from 'dsh-web'
import { RECORDS_TIMEOUT_MS, SharedTokenStore, TOKEN_RECORDS } from '../packages/mcp/src/auth/shared-token-store.js'
import { parseLifetime } from 'dsh-harness/cli'
import { FileTokenStore, hashToken } from '../packages/mcp/src/auth/token-store.js'
import { dsh, onlyJson, tempHome } from './helpers.js'

describe('dsh mcp token', () => {
  let home: string
  before(async () => {
    home = await tempHome()
  })
  after(async () => {
    await rm(home, { recursive: true, force: true })
  })

  it('create prints the token once on stdout and keeps only its SHA-256, in a 0600 file under $DSH_HOME', async () => {
    const created = await dsh(['mcp', 'token', 'create', 'ci-agents', '--expires', '30d'], { home })
    assert.equal(created.code, 0, created.stderr)
    const token = created.stdout.trim()
    assert.match(token, /^dsh_[A-Za-z0-9_-]{43}$/, 'dsh_ and 32 random bytes, base64url')
    assert.match(created.stderr, /created the MCP token "ci-agents", valid until \d{4}-/)
    const file = join(home, 'mcp-tokens.json')
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    const text = await readFile(file, 'utf8')
    assert.ok(!text.includes(token), 'the token itself is never stored')
    const stored = JSON.parse(text)
    assert.equal(stored.tokens[0].sha256, hashToken(token))
    const expires = Date.parse(stored.tokens[0].expires) - Date.parse(stored.tokens[0].created)
    assert.ok(Math.abs(expires - 30 * 86_400_000) < 60_000)
    assert.ok(!(await readdir(home)).some((name) => name.endsWith('.lock') || name.endsWith('.tmp')), 'no lock or temp file left behind')
  })

  it('list shows name, created, expires and revoked, never the token nor its hash', async () => {
    const listed = onlyJson(await dsh(['mcp', 'token', 'list', '--json'], { home }))
    assert.deepEqual(Object.keys(listed.tokens[0]).sort(), ['created', 'expired', 'expires', 'name', 'revoked'])
    assert.equal(listed.tokens[0].name, 'ci-agents')
    assert.equal(listed.tokens[0].revoked, null)
    assert.equal(listed.store, `the file ${join(home, 'mcp-tokens.json')}`, 'no shared state store in the composition: the file under $DSH_HOME')
    const human = await dsh(['mcp', 'token', 'list'], { home })
    assert.match(human.stdout, /^MCP tokens in the file \S+mcp-tokens\.json:\nci-agents {2}created \S+ {2}expires \S+ {2}active$/m)
  })

  it('refuses a second token of the same name, and a name that is not one', async () => {
    const again = await dsh(['mcp', 'token', 'create', 'ci-agents'], { home })
    assert.equal(again.code, 1)
    assert.match(again.stderr, /A token named "ci-agents" exists already; revoke it first \(dsh mcp token revoke ci-agents\)/)
    assert.equal(again.stdout, '')
    const bad = await dsh(['mcp', 'token', 'create', 'has space'], { home })
    assert.match(bad.stderr, /"has space" is not a token name/)
    const lifetime = await dsh(['mcp', 'token', 'create', 'x', '--expires', '30 days'], { home })
    assert.equal(lifetime.code, 2)
    assert.match(lifetime.stderr, /--expires takes a whole number of minutes, hours, days or weeks, like 90m, 12h, 30d or 8w, not "30 days"/)
  })

  it('revoke marks the token revoked; revoking a name that does not exist says so', async () => {
    const revoked = await dsh(['mcp', 'token', 'revoke', 'ci-agents'], { home })
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.match(revoked.stdout, /Revoked the MCP token "ci-agents"/)
    const listed = onlyJson(await dsh(['mcp', 'token', 'list', '--json'], { home }))
    assert.match(listed.tokens[0].revoked, /^\d{4}-/)
    const missing = await dsh(['mcp', 'token', 'revoke', 'nobody'], { home })
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /There is no token named "nobody"/)
  })
})

describe('dsh mcp token list: a planted record', () => {
  it('prints a record whose fields carry terminal escapes (OSC title, CSI, C1, bidi) as visible text, never raw', async () => {
    const home = await tempHome()
    try {
      const planted = {
        name: 'evil\x1b]0;pwned\x07\x1b[2J\u202e',
        sha256: 'a'.repeat(64),
        created: '2026-01-01\x9b31m',
        expires: '2099-01-01T00:00:00.000Z\x1b[1A\r',
        revoked: null,
      }
      await writeFile(join(home, 'mcp-tokens.json'), JSON.stringify({ version: 1, tokens: [planted] }), { mode: 0o600 })
      const listed = await dsh(['mcp', 'token', 'list'], { home })
      assert.equal(listed.code, 0, listed.stderr)
      assert.doesNotMatch(listed.stdout, /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/, 'no control character reaches the terminal')
      assert.ok(listed.stdout.includes('evil\\x1b]0;pwned\\x07\\x1b[2J\\u202e  created 2026-01-01\\x9b31m  expires 2099-01-01T00:00:00.000Z\\x1b[1A\\x0d  active'), listed.stdout)
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })
})

describe('FileTokenStore', () => {
  let home: string
  before(async () => {
    home = await tempHome()
  })
  after(async () => {
    await rm(home, { recursive: true, force: true })
  })

  it('checks a token against the file as it is now: a revocation or a new token made by another store (another process) is seen at the next check', async () => {
    const server = FileTokenStore.inHome(home)
    const operator = FileTokenStore.inHome(home)
    const { token } = await operator.create('agent')
    assert.deepEqual(await server.check(token), { ok: true, name: 'agent' })
    assert.deepEqual(await server.check(token + 'x'), { ok: false, reason: 'unknown' })
    await operator.revoke('agent')
    assert.deepEqual(await server.check(token), { ok: false, reason: 'revoked', name: 'agent' })
    // The name is free again once revoked; the old token stays refused.
    const second = await operator.create('agent')
    assert.deepEqual(await server.check(second.token), { ok: true, name: 'agent' })
    assert.deepEqual(await server.check(token), { ok: false, reason: 'unknown' })
  })

  it('refuses an expired token', async () => {
    const store = FileTokenStore.inHome(home)
    const { token } = await store.create('short', { expiresAt: new Date(Date.now() + 60_000) })
    assert.deepEqual(await store.check(token), { ok: true, name: 'short' })
    assert.deepEqual(await store.check(token, new Date(Date.now() + 120_000)), { ok: false, reason: 'expired', name: 'short' })
  })

  it('keeps every token when many are created at once', async () => {
    const store = FileTokenStore.inHome(home)
    const others = Array.from({ length: 4 }, () => FileTokenStore.inHome(home))
    const made = await Promise.all(others.map((other, index) => other.create(`parallel-${index}`)))
    for (const { token, record } of made) assert.deepEqual(await store.check(token), { ok: true, name: record.name })
  })

  it('says what is wrong with a damaged store, and refuses one others can write', async () => {
    const damaged = await tempHome()
    try {
      await writeFile(join(damaged, 'mcp-tokens.json'), '{"version":1,"tokens":[{"name":"x"}]}', { mode: 0o600 })
      await assert.rejects(FileTokenStore.inHome(damaged).check('dsh_x'), /does not have the expected shape/)
      await writeFile(join(damaged, 'mcp-tokens.json'), '{"version":1,"tokens":[]}', { mode: 0o622 })
      const { chmod } = await import('node:fs/promises')
      await chmod(join(damaged, 'mcp-tokens.json'), 0o622)
      await assert.rejects(FileTokenStore.inHome(damaged).list(), (error: any) => error.code === 'UNSAFE_PATH')
    } finally {
      await rm(damaged, { recursive: true, force: true })
    }
  })

  it('reads lifetimes in minutes, hours, days and weeks', () => {
    assert.equal(parseLifetime('90m', '--expires'), 90 * 60_000)
    assert.equal(parseLifetime('12h', '--expires'), 12 * 3_600_000)
    assert.equal(parseLifetime('30d', '--expires'), 30 * 86_400_000)
    assert.equal(parseLifetime('2w', '--expires'), 14 * 86_400_000)
    assert.throws(() => parseLifetime('0d', '--expires'), /--expires takes/)
  })
})

describe('SharedTokenStore (over ctx.stateStore records; on Redis in mcp-tokens-shared.spec.ts)', () => {
  /** One store of records, as every process on one Redis sees it: a real in-process store. */
  function records() {
    return new MemoryStateStore(1024)
  }

  it('gives one token and one MCP_TOKEN_EXISTS when two writers create the same name at once (compare-and-set, then again)', async () => {
    const state = records()
    const [first, second] = [new SharedTokenStore(state), new SharedTokenStore(state)]
    const outcomes = await Promise.allSettled([first.create('agents'), second.create('agents')])
    assert.deepEqual(outcomes.map((outcome) => outcome.status).sort(), ['fulfilled', 'rejected'])
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult
    assert.equal(refused.reason.code, 'MCP_TOKEN_EXISTS')
    const made = (outcomes.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<{ token: string }>).value
    assert.deepEqual(await second.check(made.token), { ok: true, name: 'agents' })
    await first.revoke('agents')
    assert.deepEqual(await second.check(made.token), { ok: false, reason: 'revoked', name: 'agents' }, 'at the next check, through the other store')
    assert.match((await second.list())[0]!.revoked!, /^\d{4}-/)
    await assert.rejects(second.revoke('nobody'), (error: any) => error.code === 'MCP_TOKEN_NOT_FOUND' && /no token named "nobody" in the shared state store "memory"/.test(error.message))
  })

  it('says which record is damaged rather than skip it', async () => {
    const state = records()
    await state.replaceRecord(TOKEN_RECORDS, 'broken', undefined, '{"name":"broken"}')
    await assert.rejects(new SharedTokenStore(state).check('dsh_x'), (error: any) => error.code === 'MCP_TOKEN_STORE_DAMAGED' && /The token record "broken"/.test(error.message))
  })

  it('a store that never answers fails every check and change at RECORDS_TIMEOUT_MS with MCP_TOKEN_STORE_UNAVAILABLE naming the store, and is asked again each time', async () => {
    let asked = 0
    const silent = {
      id: 'silent',
      describe: () => 'nowhere',
      ping: () => new Promise<void>(() => {}),
      read: () => new Promise<string | undefined>(() => {}),
      write: () => new Promise<void>(() => {}),
      consume: () => new Promise<never>(() => {}),
      enter: () => new Promise<never>(() => {}),
      readRecords: () => ((asked++), new Promise<Record<string, string>>(() => {})),
      replaceRecord: () => ((asked++), new Promise<boolean>(() => {})),
    }
    const tokens = new SharedTokenStore(silent)
    const unavailable = (error: any) => error.code === 'MCP_TOKEN_STORE_UNAVAILABLE' && new RegExp(`cannot read the records "mcp-tokens": the state store "silent" \\(nowhere\\) is not answering \\(no answer within ${RECORDS_TIMEOUT_MS} ms\\)`).test(error.message)
    await assert.rejects(tokens.check('dsh_x'), unavailable)
    await assert.rejects(tokens.create('agents'), unavailable)
    assert.equal(asked, 2, 'asked again, never a cached answer')
  })
})
