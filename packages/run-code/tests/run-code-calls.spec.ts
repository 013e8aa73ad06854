import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import { WebError } from 'dsh-web'
import { session, tools } from '../../../tests/support/host-services.js'
import * as runCode from '../src/index.js'
import * as echo from '../../../tests/plugins/echo-tool.mjs'

/** What the test tools saw, and a way to let the stubborn one finish. */
const seen = { waitStarted: 0, waitAborted: 0, stubbornStarted: 0 }
let releaseStubborn = () => {}
let stubbornReturned: Promise<void> = Promise.resolve()

/** Two test tools: one that waits until its call is cancelled, one that ignores cancellation until the test lets it go. */
const slowTools = {
  name: 'test-slow-tools',
  inject: ['tools'],
  apply(ctx: Context) {
    ctx.tools.register({
      name: 'wait',
      description: 'Waits until the call is cancelled. Test tool.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      handler: (_input, call) => new Promise((_resolve, reject) => {
        seen.waitStarted++
        const onAbort = () => {
          seen.waitAborted++
          reject(new WebError('WEB_ABORTED', 'The wait was cancelled.'))
        }
        if (call.signal.aborted) onAbort()
        else call.signal.addEventListener('abort', onAbort, { once: true })
      }),
    })
    ctx.tools.register({
      name: 'stubborn',
      description: 'Ignores its cancellation until the test releases it. Test tool.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      handler: async (_input, call) => {
        seen.stubbornStarted++
        let returned!: () => void
        stubbornReturned = new Promise((resolve) => (returned = resolve))
        await new Promise<void>((resolve) => (releaseStubborn = resolve))
        await call.session?.append('test/stubborn-late', { aborted: call.signal.aborted })
        setImmediate(returned)
        return { content: 'done late', structured: { late: true } }
      },
    })
  },
}

describe('run_code nested tool calls: caps, and cancellation when the run ends', () => {
  let home: string
  let ctx: Context
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-ptc-calls-'))
    ctx = new Context()
    ctx.plugin(session, { home })
    ctx.plugin(tools, { mode: 'ptc' })
    ctx.plugin(runCode, { timeoutMs: 10_000, memoryMb: 16 })
    ctx.plugin(echo, { prefix: 'echo' })
    ctx.plugin(slowTools)
    await ctx.start()
  })
  after(() => rm(home, { recursive: true, force: true }))

  const run = async (code: string, extra: Record<string, unknown> = {}) => {
    const s = await ctx.session.create()
    const outcome = await ctx.tools.invoke('run_code', { code, ...extra }, { session: s })
    return { outcome, structured: outcome.structured as any, session: s }
  }
  /** Events from the run_code call's own tool/result on, after every write already issued has landed. */
  const eventsAfterResult = async (s: Awaited<ReturnType<typeof run>>['session']) => {
    await new Promise((resolve) => setImmediate(resolve))
    await s.append('test/marker', {})
    const events = await s.read()
    const result = events.findIndex((event) => event.type === 'tool/result' && event.visibility === 'surface')
    return events.slice(result).map((event) => event.type)
  }

  it('stops the run at 100 tool calls with CODE_RESOURCE_LIMIT naming the cap, listing the 100 made', async () => {
    const { outcome, structured } = await run(`for (let i = 0; i < 101; i++) await tools.echo({ text: 'call ' + i })`)
    assert.equal(outcome.error?.code, 'CODE_RESOURCE_LIMIT', outcome.content.slice(0, 500))
    assert.match(outcome.error!.message, /more than 100 tool calls, the most one run may make/)
    assert.equal(structured.calls.length, 100)
    assert.ok(structured.calls.every((call: any) => call.outcome === 'ok'))
    assert.match(outcome.content, /Tool calls \(100\):/)
  })

  it('queues calls beyond the 8 running at once; when the run ends, the queued ones never start and are recorded as cancelled like the running ones, before its result', async () => {
    const started = seen.waitStarted
    const { outcome, structured, session: s } = await run(`await Promise.all(Array.from({ length: 11 }, () => tools.wait({})))`, { timeout_ms: 1000 })
    assert.equal(outcome.error?.code, 'CODE_TIMEOUT', outcome.content)
    assert.equal(seen.waitStarted - started, 8, 'eight ran at once, the other three waited')
    assert.equal(structured.calls.length, 11)
    const ran = structured.calls.slice(0, 8)
    const queued = structured.calls.slice(8)
    // Each that ran ends WEB_ABORTED: its handler saw the signal, or the tools service found it aborted before the handler started.
    assert.deepEqual(ran.map((call: any) => [call.tool, call.outcome, call.code]), Array(8).fill(['wait', 'cancelled', 'WEB_ABORTED']))
    for (const call of ran) assert.ok(call.startedAt >= call.queuedAt, call.callId)
    assert.deepEqual(queued.map((call: any) => [call.tool, call.outcome, call.code, call.startedAt, call.durationMs]), Array(3).fill(['wait', 'cancelled', 'CODE_CANCELLED', undefined, 0]))
    for (const call of queued) assert.match(call.queuedAt, /^\d{4}-\d\d-\d\dT/)
    const events = await s.read()
    const resultIndex = events.findIndex((event) => event.type === 'tool/result' && event.visibility === 'surface')
    const before = events.slice(0, resultIndex)
    assert.equal(before.filter((event) => event.type === 'tool/code-dispatch-start').length, 8)
    const ends = before.filter((event) => event.type === 'tool/code-dispatch').map((event) => event.data as any)
    assert.deepEqual(ends.filter((data) => data.startedAt === undefined).map((data) => [data.callId, data.outcome, data.code]), queued.map((call: any) => [call.callId, 'cancelled', 'CODE_CANCELLED']))
    assert.match(ends.find((data) => data.startedAt === undefined).message, /waiting for a free slot \(at most 8 tool calls of one run at once\) when the run ended; it never started/)
    assert.deepEqual(await eventsAfterResult(s), ['tool/result', 'test/marker'])
  })

  it('starts queued calls in call order as running ones end: 30 calls at once all complete', async () => {
    const { outcome, structured } = await run(`return (await Promise.all(Array.from({ length: 30 }, (_, i) => tools.echo({ text: 'n' + i })))).length`)
    assert.equal(outcome.isError, false, outcome.content)
    assert.equal(structured.result, 30)
    assert.deepEqual(structured.calls.map((call: any) => call.outcome), Array(30).fill('ok'))
    const starts = structured.calls.map((call: any) => call.startedAt)
    assert.deepEqual([...starts].sort(), starts, 'started in the order the code made them')
  })

  it('cancels a slow call at the deadline, records its end before the result, and lists it for the model', async () => {
    const { outcome, structured, session: s } = await run(`console.log('waiting'); await tools.wait({})`, { timeout_ms: 1000 })
    assert.equal(outcome.error?.code, 'CODE_TIMEOUT', outcome.content)
    const [call] = structured.calls
    // WEB_ABORTED either way: from the handler that saw its signal, or from the tools service if the deadline came before the handler started.
    assert.deepEqual([structured.calls.length, call.callId, call.tool, call.outcome, call.code], [1, `${outcome.callId}:code:1`, 'wait', 'cancelled', 'WEB_ABORTED'])
    assert.match(outcome.content, new RegExp(`Tool calls \\(1\\):\\n- ${outcome.callId}:code:1 wait: cancelled when the run ended \\(WEB_ABORTED\\)`))
    const events = await s.read()
    const nested = events.filter((event) => (event.data as any)?.callId === call.callId).map((event) => event.type)
    assert.deepEqual(nested, ['tool/code-dispatch-start', 'tool/call', 'tool/result', 'tool/code-dispatch'])
    assert.equal((events.find((event) => event.type === 'tool/code-dispatch') as any).data.outcome, 'cancelled')
    assert.deepEqual(await eventsAfterResult(s), ['tool/result', 'test/marker'])
  })

  it('aborts the signal of a call whose handler is running when run_code is cancelled, and records its end first', async () => {
    const started = seen.waitStarted
    const aborted = seen.waitAborted
    const controller = new AbortController()
    const s = await ctx.session.create()
    const pending = ctx.tools.invoke('run_code', { code: `await tools.wait({})`, timeout_ms: 60_000 }, { session: s, signal: controller.signal })
    while (seen.waitStarted === started) await new Promise((resolve) => setTimeout(resolve, 10))
    controller.abort()
    const outcome = await pending
    assert.equal(outcome.error?.code, 'CODE_CANCELLED', outcome.content)
    assert.equal(seen.waitAborted - aborted, 1)
    const structured = outcome.structured as any
    assert.deepEqual(structured.calls.map((call: any) => [call.tool, call.outcome, call.code]), [['wait', 'cancelled', 'WEB_ABORTED']])
    const result = (await s.read()).find((event) => event.type === 'tool/result' && (event.data as any).tool === 'wait')
    assert.match((result!.data as any).error.message, /The wait was cancelled/)
    assert.deepEqual(await eventsAfterResult(s), ['tool/result', 'test/marker'])
  })

  it('abandons a call that ignores its cancellation after the grace period, and nothing it does later reaches the session', async () => {
    const started = seen.stubbornStarted
    const controller = new AbortController()
    const s = await ctx.session.create()
    const pending = ctx.tools.invoke('run_code', { code: `await tools.stubborn({})`, timeout_ms: 60_000 }, { session: s, signal: controller.signal })
    while (seen.stubbornStarted === started) await new Promise((resolve) => setTimeout(resolve, 10))
    controller.abort()
    const outcome = await pending
    const structured = outcome.structured as any
    assert.equal(outcome.error?.code, 'CODE_CANCELLED', outcome.content)
    assert.deepEqual(structured.calls.map((call: any) => [call.tool, call.outcome, call.code, call.settled]), [['stubborn', 'cancelled', 'CODE_CANCELLED', false]])
    assert.match(outcome.content, /stubborn: cancelled when the run ended, and abandoned/)
    const recorded = (await s.read()).find((event) => event.type === 'tool/code-dispatch')
    assert.match((recorded!.data as any).message, /had not stopped 2000 ms later; it was abandoned/)
    // Let it finish now: its own event and the tools service's tool/result for it must not be written.
    releaseStubborn()
    await stubbornReturned
    assert.deepEqual(await eventsAfterResult(s), ['tool/result', 'test/marker'])
  })

  it('cancels a call the code left running when it returned', async () => {
    const { outcome, structured, session: s } = await run(`tools.wait({}); 'returned without waiting'`)
    assert.equal(outcome.isError, false, outcome.content)
    assert.equal(structured.result, 'returned without waiting')
    assert.deepEqual(structured.calls.map((call: any) => call.outcome), ['cancelled'])
    assert.deepEqual(await eventsAfterResult(s), ['tool/result', 'test/marker'])
  })
})
