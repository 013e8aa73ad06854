import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import { session, tools } from '../../../tests/support/host-services.js'
import * as runCode from '../src/index.js'
import * as echo from '../../../tests/plugins/echo-tool.mjs'
import * as refuse from '../../../tests/plugins/refuse-policy.mjs'
import { CODE_WORKER_MODULE } from '../src/code-runner.js'

describe('run_code (PTC transport)', () => {
  let home: string
  let ctx: Context
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-ptc-'))
    ctx = new Context()
    ctx.plugin(session, { home })
    ctx.plugin(tools, { mode: 'ptc' })
    ctx.plugin(runCode, { timeoutMs: 2000, memoryMb: 16 })
    ctx.plugin(echo, { prefix: 'echo', effects: ['net_read'] })
    await ctx.start()
  })
  after(() => rm(home, { recursive: true, force: true }))

  const run = async (code: string, extra: Record<string, unknown> = {}) => {
    const s = await ctx.session.create()
    const outcome = await ctx.tools.invoke('run_code', { code, ...extra }, { session: s })
    return { outcome, structured: outcome.structured as any, events: await s.read(), session: s }
  }

  it('shows the model run_code alone, describing the tools its code can call', () => {
    const roster = ctx.tools.roster()
    assert.deepEqual(roster.map((tool) => tool.name), ['run_code'])
    assert.match(roster[0].description, /tools\.echo\(input\)/)
    assert.deepEqual(ctx.tools.list().map((tool) => tool.name), ['echo', 'run_code'])
  })

  it('calls tools from code, captures console output and returns the last expression', async () => {
    const { outcome, structured, events } = await run(`
      const a = await tools.echo({ text: 'one' })
      console.log('first said', a.text)
      const b = await tools.echo({ text: 'two' });
      ({ texts: [a.text, b.text] })
    `)
    assert.equal(outcome.isError, false, outcome.content)
    assert.deepEqual(structured.result, { texts: ['one', 'two'] })
    assert.deepEqual(structured.logs, ['first said one'])
    assert.deepEqual(structured.calls.map((call: any) => [call.callId, call.tool, call.outcome]), [
      [`${outcome.callId}:code:1`, 'echo', 'ok'],
      [`${outcome.callId}:code:2`, 'echo', 'ok'],
    ])
    assert.match(outcome.content, /Tool calls \(2\)/)
    assert.match(outcome.content, /first said one/)
    const types = events.map((event) => `${event.type}:${event.visibility}`)
    assert.deepEqual(types, [
      'tool/call:surface',
      'tool/code-dispatch-start:log', 'tool/call:log', 'tool/result:log', 'tool/code-dispatch:log',
      'tool/code-dispatch-start:log', 'tool/call:log', 'tool/result:log', 'tool/code-dispatch:log',
      'tool/result:surface',
    ])
    assert.equal((events[1].data as any).callId, `${outcome.callId}:code:1`)
  })

  it('supports an explicit return and throws tool errors into the code with their code', async () => {
    const { structured } = await run(`
      try { await tools.echo({ text: 'web-error' }) } catch (error) { return { code: error.code, message: error.message } }
    `)
    assert.deepEqual(structured.result, { code: 'WEB_FETCH_FAILED', message: 'The test asked for a typed failure.' })
  })

  it('runs nested calls through validation and tools/pre-execute', async () => {
    const invalid = await run(`await tools.echo({ text: 'x', headers: {} })`)
    assert.equal(invalid.outcome.isError, true)
    assert.match(invalid.outcome.error!.message, /unknown argument "headers"/)
    const policy = ctx.plugin(refuse, { effect: 'net_read' })
    await ctx.lifecycle.flush()
    try {
      const refused = await run(`await tools.echo({ text: 'x' })`)
      assert.match(refused.outcome.error!.message, /TOOL_REFUSED/)
    } finally {
      policy.dispose()
    }
  })

  it('stops a runaway loop at its deadline and stays healthy', async () => {
    const { outcome } = await run('while (true) {}', { timeout_ms: 300 })
    assert.equal(outcome.error?.code, 'CODE_TIMEOUT')
    assert.match(outcome.content, /longer than its limit of 300 ms/)
    const after = await run('1 + 1')
    assert.equal(after.structured.result, 2)
  })

  it('stops a runaway allocation at the memory limit', async () => {
    const { outcome } = await run('const parts = []; while (true) parts.push({ index: parts.length })')
    assert.equal(outcome.error?.code, 'CODE_RESOURCE_LIMIT', outcome.content)
  })

  it('stops code waiting on a slow tool at the deadline', async () => {
    const { outcome } = await run(`await tools.echo({ text: 'slow' })`, { timeout_ms: 300 })
    assert.equal(outcome.error?.code, 'CODE_TIMEOUT')
  })

  it('has no filesystem, network, process, require or import', async () => {
    const probes = {
      require: `typeof require`,
      process: `typeof process`,
      fetch: `typeof fetch`,
      timers: `typeof setTimeout`,
      std: `typeof std + typeof os`,
    }
    for (const [name, code] of Object.entries(probes)) {
      const { structured } = await run(code)
      assert.match(String(structured.result), /^(undefined)+$/, name)
    }
    const staticImport = await run(`import fs from 'node:fs'`)
    assert.equal(staticImport.outcome.error?.code, 'CODE_ERROR')
    assert.match(staticImport.outcome.content, /import and export are not available/)
    const dynamicImport = await run(`await import('node:fs')`)
    assert.equal(dynamicImport.outcome.isError, true)
    const escape = await run(`this.constructor.constructor('return typeof process')()`)
    assert.equal(escape.structured.result, 'undefined')
  })

  it('reports a thrown error with its line', async () => {
    const { outcome } = await run('const a = 1\nconst b = 2\nthrow new TypeError("bad thing")')
    assert.equal(outcome.error?.code, 'CODE_ERROR')
    assert.match(outcome.error!.message, /TypeError: bad thing \(line 3\)/)
  })

  it('runs TypeScript by removing its types, keeping line numbers, with or without language', async () => {
    const code = [
      'interface Echoed { text: string }',
      'const first: Echoed = await tools.echo({ text: "typed" }) as Echoed',
      'function shout(value: string): string { return value.toUpperCase() }',
      'shout(first.text)',
    ].join('\n')
    for (const extra of [{ language: 'typescript' }, {}]) {
      const { outcome, structured } = await run(code, extra)
      assert.equal(outcome.isError, false, outcome.content)
      assert.equal(structured.result, 'TYPED')
    }
    const failing = await run('const a: number = 1\nconst b: string = "x"\nthrow new Error(`at three ${a}${b}`)', { language: 'typescript' })
    assert.match(failing.outcome.error!.message, /at three 1x \(line 3\)/)
  })

  it('refuses TypeScript that cannot run by removing types, and keeps JavaScript errors for JavaScript', async () => {
    const enumCode = await run('enum Color { Red }\nColor.Red', { language: 'typescript' })
    assert.equal(enumCode.outcome.error?.code, 'CODE_ERROR')
    assert.match(enumCode.outcome.content, /enums, namespaces, parameter properties.*line 1: enum Color/)
    const broken = await run('const x = ;')
    assert.match(broken.outcome.content, /Unexpected token at line 1/)
    const jsOnly = await run('const a: number = 1', { language: 'javascript' })
    assert.equal(jsOnly.outcome.error?.code, 'CODE_ERROR')
  })

  it('keeps the host answering while the code loops, and a cancel ends the run at once', async () => {
    const controller = new AbortController()
    const s = await ctx.session.create()
    const pending = ctx.tools.invoke('run_code', { code: 'while (true) {}', timeout_ms: 60_000 }, { session: s, signal: controller.signal })
    // If the loop ran on this thread, this timer could not fire before the 60 s deadline.
    const order: string[] = []
    await new Promise<void>((resolve) => setTimeout(() => { order.push('host timer'); resolve() }, 200))
    controller.abort()
    const outcome = await pending
    order.push(outcome.error!.code)
    assert.deepEqual(order, ['host timer', 'CODE_CANCELLED'])
  })

  it('stops a flood of console output at its limit and keeps what came before', async () => {
    const { outcome, structured } = await run('let i = 0\nwhile (true) console.log(`line ${i++} ` + "x".repeat(1000))', { timeout_ms: 20_000 })
    assert.equal(outcome.error?.code, 'CODE_RESOURCE_LIMIT', outcome.content)
    assert.match(outcome.error!.message, /more than 1000000 characters of console output/)
    assert.ok(structured.logs.length > 100)
    assert.match(structured.logs[0], /^line 0 x/)
  })

  it('ends a runaway allocation with a limit error, and the next run works', async () => {
    const { outcome } = await run('const big = []\nfor (;;) big.push([big.length])', { timeout_ms: 500 })
    assert.ok(['CODE_TIMEOUT', 'CODE_RESOURCE_LIMIT'].includes(outcome.error!.code), outcome.content)
    const after = await run('2 + 2')
    assert.equal(after.structured.result, 4)
  })

  it('closes the page\'s fence before its notice when the output is over the threshold (it was cut at 2000 characters, inside the fence)', async () => {
    const { outcome, session } = await run('console.log("page line\\n".repeat(3000)); ({ text: "y".repeat(60000) })')
    assert.equal(outcome.isError, false, outcome.content.slice(0, 500))
    const notice = outcome.content.indexOf('[The complete output is ')
    assert.ok(notice > 0, 'the notice follows the head')
    const before = outcome.content.slice(0, notice)
    const opened = [...before.matchAll(/<untrusted-content id="([0-9a-f]+)"/g)].map((match) => match[1])
    const closed = [...before.matchAll(/<\/untrusted-content id="([0-9a-f]+)">/g)].map((match) => match[1])
    assert.ok(opened.length > 0, 'the head holds the console fence')
    assert.deepEqual(closed, opened, 'every fence the head opens is closed before the notice')
    assert.ok(!/<\/?untrusted-content/.test(outcome.content.slice(notice)), 'nothing after the notice is fenced')
    const path = /Nothing was left out of the file: (\S+) \(/.exec(outcome.content)![1]
    assert.ok(path.startsWith(join(session.dir, 'artifacts')), path)
    const whole = await readFile(path, 'utf8')
    assert.ok(whole.length > 60000 && whole.includes('y'.repeat(60000)), 'the file holds the output whole')
  })

  it('refuses a direct call to a tool the PTC model cannot see, saying how to call it from code', async () => {
    const outcome = await ctx.tools.invoke('echo', { text: 'direct' })
    assert.equal(outcome.error?.code, 'TOOL_NOT_EXPOSED')
    assert.match(outcome.content, /call echo from its code: `await tools\.echo\(\{ \.\.\. \}\)`/)
  })
})

describe('run_code in the session log', () => {
  let home: string
  before(async () => (home = await mkdtemp(join(tmpdir(), 'dsh-ptc-log-'))))
  after(() => rm(home, { recursive: true, force: true }))

  it('logs a call made from run_code code once, not twice (was: tool/code-dispatch-start and tool/call both held the input)', async () => {
    const ptc = new Context()
    ptc.plugin(session, { home })
    ptc.plugin(tools, { mode: 'ptc' })
    ptc.plugin(runCode, { timeoutMs: 10_000 })
    ptc.plugin(echo, { prefix: 'echo' })
    await ptc.start()
    const s = await ptc.session.create()
    const marker = 'logged-once-' + 'z'.repeat(64)
    const outcome = await ptc.tools.invoke('run_code', { code: `await tools.echo({ text: ${JSON.stringify(marker)} })` }, { session: s })
    assert.equal(outcome.isError, false, outcome.content)
    const raw = await readFile(join(s.dir, 'events.jsonl'), 'utf8')
    const holding = raw.trim().split('\n').map((line) => JSON.parse(line)).filter((event) => event.data.input?.text === marker)
    assert.deepEqual(holding.map((event) => [event.type, event.visibility, event.data.callId]), [['tool/call', 'log', `${outcome.callId}:code:1`]])
  })
})

describe('run_code worker code', () => {
  const job = { timeoutMs: 5000, memoryBytes: 16 * 1048576, maxResultBytes: 65536, maxToolCalls: 0, maxLogChars: 1000, toolNames: [], callTool: async () => 'null' }

  it('runs from the TypeScript source under tsx, so an edit needs no build (it ran ../dist/tools/code-worker.js, which can be stale)', async () => {
    assert.equal(CODE_WORKER_MODULE.href, new URL('../src/code-worker.ts', import.meta.url).href)
    // A copy of src/ inside the package (so that its imports resolve), whose
    // worker is edited to change every result: no build has that edit.
    const copy = await mkdtemp(fileURLToPath(new URL('../.worker-source-test-', import.meta.url)))
    try {
      await cp(fileURLToPath(new URL('../src', import.meta.url)), join(copy, 'src'), { recursive: true })
      const worker = join(copy, 'src', 'code-worker.ts')
      // Imports are hoisted, so this runs first, before the worker posts its result.
      await writeFile(worker, `{ const post = parentPort!.postMessage.bind(parentPort!)\n` +
        `  parentPort!.postMessage = (message: any) => post(message.type === 'done' ? { type: 'done', result: { json: '"edited source"' } } : message) }\n` +
        await readFile(worker, 'utf8'))
      const copied = (await import(pathToFileURL(join(copy, 'src', 'code-runner.ts')).href)) as typeof import('../src/code-runner.js')
      const result = await copied.runCodeInWorker({ ...job, code: '1 + 1', language: 'javascript', signal: new AbortController().signal })
      assert.equal(result.value, 'edited source', 'the worker ran the edited source')
    } finally {
      await rm(copy, { recursive: true, force: true })
    }
  })

  it('runs the built worker beside the built bundle, as in production', async () => {
    // The bundle starts the worker by file name beside itself: dist/code-worker.js, an entry point of its own.
    assert.ok(existsSync(new URL('../dist/code-worker.js', import.meta.url)), 'the build wrote the worker beside the bundle')
    const built = (await import(new URL('../dist/index.js', import.meta.url).href)) as typeof import('../src/index.js')
    const tool = built.createRunCodeTool({ list: () => [], invoke: async () => { throw new Error('no tools here') } }, { timeoutMs: 5000, maxTimeoutMs: 5000, memoryMb: 16, outputThreshold: 65536 })
    const result = await tool.handler({ code: '1 + 1' }, { callId: 'built', signal: new AbortController().signal })
    assert.equal(result.isError, undefined, result.content)
    assert.equal((result.structured as { result: unknown }).result, 2)
  })
})
