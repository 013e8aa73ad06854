import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import { ToolsNotRegisteredError, whenToolsRegistered } from 'dsh-host'
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

  it('compiles a schema on the tool\'s first call: one that is not valid JSON Schema makes every call an INTERNAL_ERROR naming the fault, and the handler never runs', async () => {
    let ran = false
    const dispose = ctx.tools.register({
      name: 'typo',
      description: 'x',
      inputSchema: { type: 'object', properties: { a: { type: 'strin' } }, additionalProperties: false } as any,
      handler: async () => ((ran = true), { content: 'ran' }),
    })
    try {
      for (let call = 0; call < 2; call++) {
        const outcome = await ctx.tools.invoke('typo', { a: 'x' })
        assert.equal(outcome.error?.code, 'INTERNAL_ERROR')
        assert.match(outcome.error!.message, /^The tool typo cannot be called: Tool typo: inputSchema is not a valid JSON Schema: .*a bug in the plugin that registers it/)
      }
      assert.equal(ran, false)
    } finally {
      dispose()
    }
  })
})

/** `{ text: [[[…1…]]] }` with `levels` arrays around the 1, built without recursion. */
function nested(levels: number): { text: unknown } {
  let value: unknown = 1
  for (let level = 0; level < levels; level++) value = [value]
  return { text: value }
}

describe('tools service: inputs are checked before they are logged', () => {
  let home: string
  let ctx: Context
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-tools-input-'))
    ctx = new Context()
    ctx.plugin(session, { home })
    ctx.plugin(tools, { mode: 'native' })
    ctx.plugin(echo, { prefix: 'echo' })
    await ctx.start()
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('refuses an input nested 100,000 levels deep with INVALID_ARGUMENT naming the depth limit and the path (was: Maximum call stack size exceeded, nothing logged)', async () => {
    const s = await ctx.session.create()
    const outcome = await ctx.tools.invoke('echo', nested(100_000), { session: s })
    assert.equal(outcome.error?.code, 'INVALID_ARGUMENT')
    assert.match(outcome.content, /input\.text\[0\]\[0\].*is nested 65 levels deep, deeper than the limit of 64\. The limit is the tools row's inputMaxDepth/)
    const events = await s.read()
    assert.deepEqual(events.map((event) => event.type), ['tool/call', 'tool/result'])
    const call = events[0].data as any
    assert.equal(call.refused.code, 'INVALID_ARGUMENT')
    assert.equal(call.inputBytes, '{"text":'.length + 2 * 100_000 + '1}'.length)
    assert.equal(call.input, undefined)
    assert.ok(call.inputPreview.length <= 2000 && call.inputPreview.startsWith('{"text":[[[['))
    // The service still answers.
    assert.equal((await ctx.tools.invoke('echo', { text: 'after' })).content, 'echo: after')
  })

  it('refuses a 5 MB input by the size limit and keeps the session log small (was: the whole input written to the log)', async () => {
    const s = await ctx.session.create()
    const outcome = await ctx.tools.invoke('echo', { text: 'x'.repeat(5_000_000) }, { session: s })
    assert.equal(outcome.error?.code, 'INVALID_ARGUMENT')
    assert.match(outcome.content, /input is 5,000,011 bytes \(4\.8 MiB\) as JSON, more than the limit of 1,048,576 bytes \(1\.0 MiB\); the largest part is input\.text, 5,000,002 bytes/)
    assert.match(outcome.content, /inputMaxBytes/)
    const call = (await s.read())[0].data as any
    assert.equal(call.inputBytes, Buffer.byteLength(JSON.stringify({ text: 'x'.repeat(5_000_000) })))
    assert.equal(call.refused.code, 'INVALID_ARGUMENT')
    assert.ok((await stat(join(s.dir, 'events.jsonl'))).size < 16 * 1024, 'the log holds a preview, not the input')
  })

  it('logs a valid 200 KB input after validation as a preview with its size and sha256', async () => {
    const s = await ctx.session.create()
    const input = { text: 'y'.repeat(200_000) }
    const outcome = await ctx.tools.invoke('echo', input, { session: s })
    assert.equal(outcome.isError, false, outcome.content)
    const [call, result] = await s.read()
    const text = JSON.stringify(input)
    assert.deepEqual(call.data, {
      callId: outcome.callId,
      tool: 'echo',
      inputBytes: Buffer.byteLength(text),
      inputSha256: createHash('sha256').update(text).digest('hex'),
      inputPreview: text.slice(0, 2000),
    })
    assert.equal(result.type, 'tool/result')
    // An invalid input is refused on the schema, and the call records that it was.
    const refused = await ctx.tools.invoke('echo', { text: 'y'.repeat(200_000), extra: 1 }, { session: s })
    assert.equal(refused.error?.code, 'INVALID_ARGUMENT')
    const [, , refusedCall] = await s.read()
    assert.equal((refusedCall.data as any).refused.code, 'INVALID_ARGUMENT')
    assert.equal((refusedCall.data as any).input, undefined)
  })

  it('in ptc mode shows the model run_code alone, refuses a direct call to another tool and lets a nested one through, logged only', async () => {
    const ptc = new Context()
    ptc.plugin(session, { home })
    ptc.plugin(tools, { mode: 'ptc' })
    ptc.plugin(echo, { prefix: 'echo' })
    // run_code as any plugin registers it (dsh-run-code's is tested in its package): here a stand-in that calls echo nested.
    ptc.inject(['tools'], (inner) => {
      inner.tools.register({
        name: 'run_code',
        description: 'Stand-in for dsh-run-code.',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        handler: async (_input, call) => {
          const nested = await inner.tools.invoke('echo', { text: 'from code' }, { session: call.session, signal: call.signal, callId: `${call.callId}:code:1`, nested: true })
          return { content: nested.content, structured: nested.structured }
        },
      })
    })
    await ptc.start()
    assert.deepEqual(ptc.tools.roster().map((tool) => tool.name), ['run_code'])
    assert.deepEqual(ptc.tools.list({ except: 'run_code' }).map((tool) => tool.name), ['echo'])
    const direct = await ptc.tools.invoke('echo', { text: 'direct' })
    assert.equal(direct.error?.code, 'TOOL_NOT_EXPOSED')
    const s = await ptc.session.create()
    const outcome = await ptc.tools.invoke('run_code', {}, { session: s })
    assert.equal(outcome.content, 'echo: from code')
    assert.deepEqual((await s.read()).map((event) => `${event.type}:${event.visibility}:${(event.data as any).tool}`), [
      'tool/call:surface:run_code', 'tool/call:log:echo', 'tool/result:log:echo', 'tool/result:surface:run_code',
    ])
    await ptc.stop()
  })

  it('takes its limits from the tools row', async () => {
    const strict = new Context()
    strict.plugin(tools, { mode: 'native', inputMaxDepth: 3, inputMaxBytes: 2048 })
    strict.plugin(echo, { prefix: 'echo' })
    await strict.start()
    assert.match((await strict.tools.invoke('echo', nested(3))).content, /nested 4 levels deep, deeper than the limit of 3/)
    assert.match((await strict.tools.invoke('echo', { text: 'w'.repeat(3000) })).content, /more than the limit of 2,048 bytes/)
    assert.equal((await strict.tools.invoke('echo', nested(2))).error?.code, 'INVALID_ARGUMENT') // deep enough to pass, but not a string
    assert.match((await strict.tools.invoke('echo', nested(2))).content, /"text" must be string/)
  })
})

describe('the tools readiness signal', () => {
  it('resolves a wait begun before the tool plugin starts, once its tool is registered', async () => {
    const ctx = new Context()
    ctx.plugin(tools, { mode: 'native' })
    let ready: Promise<void> | undefined
    let seenAtStart: boolean | undefined
    // A plugin that starts before the one registering `echo`: the tool is missing at its own start.
    ctx.plugin({
      name: 'waits-at-start',
      inject: ['tools'],
      apply(child: Context) {
        seenAtStart = child.tools.has('echo')
        ready = whenToolsRegistered(child, ['echo'])
      },
    })
    await ctx.start()
    assert.equal(seenAtStart, false)
    assert.ok(ready)
    ctx.plugin(echo, { prefix: 'late' })
    await ready
    assert.equal((await ctx.tools.invoke('echo', { text: 'hi' })).content, 'late: hi')
    await ctx.stop()
  })

  it('resolves at once for tools already registered', async () => {
    const ctx = new Context()
    ctx.plugin(tools, { mode: 'native' })
    ctx.plugin(echo, {})
    await ctx.start()
    await whenToolsRegistered(ctx, ['echo'])
    await ctx.stop()
  })

  it('rejects with TOOLS_NOT_REGISTERED naming the missing tools when its signal aborts', async () => {
    const ctx = new Context()
    ctx.plugin(tools, { mode: 'native' })
    ctx.plugin(echo, {})
    await ctx.start()
    const controller = new AbortController()
    const waiting = whenToolsRegistered(ctx, ['echo', 'web_fetch'], { signal: controller.signal })
    controller.abort()
    await assert.rejects(waiting, (error: unknown) => {
      assert.ok(error instanceof ToolsNotRegisteredError)
      assert.equal(error.code, 'TOOLS_NOT_REGISTERED')
      assert.deepEqual(error.details.missing, ['web_fetch'])
      assert.match(error.message, /web_fetch: not registered yet.*dsh-tool-web/)
      return true
    })
    await ctx.stop()
  })
})
