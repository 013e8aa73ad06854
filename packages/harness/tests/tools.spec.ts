import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as session from 'dsh-harness/session'
import * as tools from 'dsh-harness/tools'
import * as echo from '../../../tests/plugins/echo-tool.mjs'
import * as refuse from '../../../tests/plugins/refuse-policy.mjs'

describe('tools service', () => {
  let home: string
  let ctx: Context
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-tools-'))
    ctx = new Context()
    ctx.plugin(session, { home })
    ctx.plugin(tools, { mode: 'native' })
    ctx.plugin(echo, { prefix: 'echo', effects: ['net_read'] })
    await ctx.start()
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('runs a valid call and records the call and its result as surface events', async () => {
    const s = await ctx.session.create()
    const outcome = await ctx.tools.invoke('echo', { text: 'hi' }, { session: s })
    assert.equal(outcome.isError, false)
    assert.equal(outcome.content, 'echo: hi')
    assert.deepEqual(outcome.structured, { text: 'hi', session: s.id })
    const events = await s.read()
    assert.deepEqual(events.map((event) => [event.type, event.visibility]), [['tool/call', 'surface'], ['tool/result', 'surface']])
    assert.deepEqual((events[0].data as any).input, { text: 'hi' })
    assert.equal((events[1].data as any).callId, outcome.callId)
  })

  it('refuses unknown arguments by name before the handler runs', async () => {
    const outcome = await ctx.tools.invoke('echo', { text: 'hi', headers: { cookie: 'x' } })
    assert.equal(outcome.isError, true)
    assert.equal(outcome.error?.code, 'INVALID_ARGUMENT')
    assert.match(outcome.content, /unknown argument "headers" \(allowed: text\)/)
  })

  it('names missing and mistyped arguments', async () => {
    assert.match((await ctx.tools.invoke('echo', {})).content, /missing required argument "text"/)
    assert.match((await ctx.tools.invoke('echo', { text: 3 })).content, /"text" must be string/)
    assert.match((await ctx.tools.invoke('echo', [] as any)).content, /must be a JSON object/)
    assert.match((await ctx.tools.invoke('nope', {})).content, /no tool named "nope"\. Available tools: echo/)
  })

  it('turns a WebError into an error outcome with its code', async () => {
    const outcome = await ctx.tools.invoke('echo', { text: 'web-error' })
    assert.deepEqual(outcome.error, { code: 'WEB_FETCH_FAILED', message: 'The test asked for a typed failure.' })
    assert.equal(outcome.isError, true)
  })

  it('treats any other exception as a bug: stack in the log, not in the model text', async () => {
    const s = await ctx.session.create()
    const outcome = await ctx.tools.invoke('echo', { text: 'bug' }, { session: s })
    assert.equal(outcome.error?.code, 'INTERNAL_ERROR')
    assert.ok(!outcome.content.includes('kaboom'))
    const events = await s.read()
    const bug = events.find((event) => event.type === 'tool/error')
    assert.equal(bug?.visibility, 'log')
    assert.match(String((bug?.data as any).stack), /kaboom/)
    assert.deepEqual((await ctx.session.history(s.id)).map((event) => event.type), ['tool/call', 'tool/result'])
  })

  it('lets a tools/pre-execute policy refuse a call, with the reason for the model', async () => {
    const policy = ctx.plugin(refuse, { effect: 'net_read' })
    await ctx.lifecycle.flush()
    try {
      const s = await ctx.session.create()
      const outcome = await ctx.tools.invoke('echo', { text: 'hi' }, { session: s })
      assert.equal(outcome.error?.code, 'TOOL_REFUSED')
      assert.match(outcome.content, /net_read effect are switched off here/)
      const result = (await s.read()).find((event) => event.type === 'tool/result')
      assert.match(JSON.stringify(result?.data), /switched off/)
    } finally {
      policy.dispose()
    }
    assert.equal((await ctx.tools.invoke('echo', { text: 'hi' })).isError, false)
  })

  it('passes cancellation to the handler', async () => {
    const controller = new AbortController()
    const pending = ctx.tools.invoke('echo', { text: 'slow' }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 20)
    const outcome = await pending
    assert.equal(outcome.error?.code, 'WEB_ABORTED')
  })

  it('removes a tool when its plugin is disposed, and refuses open schemas and duplicate names', async () => {
    const fork = ctx.plugin({
      name: 'temp-tool',
      inject: ['tools'],
      apply: (ctx: Context) => {
        ctx.tools.register({ name: 'temp', description: 'x', inputSchema: { type: 'object', properties: {}, additionalProperties: false }, handler: async () => ({ content: 'ok' }) })
      },
    })
    await ctx.lifecycle.flush()
    assert.ok(ctx.tools.has('temp'))
    fork.dispose()
    assert.ok(!ctx.tools.has('temp'))
    assert.throws(() => ctx.tools.register({ name: 'open', description: 'x', inputSchema: { type: 'object', properties: {} } as any, handler: async () => ({ content: '' }) }), /must be closed/)
    assert.throws(() => ctx.tools.register({ name: 'echo', description: 'x', inputSchema: { type: 'object', properties: {}, additionalProperties: false }, handler: async () => ({ content: '' }) }), /already registered/)
  })
})
