import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import { Context, Service } from 'cordis'
import * as web from 'dsh-web'
import * as credentials from 'dsh-harness/credentials'
import * as sessions from 'dsh-harness/session'
import * as deepseek from '../src/index.js'
import { FixtureServer } from './fixture-server.js'
import { rejection } from './helpers.js'

const EVENT = 'web/deepseek-search-llm-request'
let refCounter = 0
const contexts: Context[] = []

/** A row's config as YAML gives it: partial, the schema fills the defaults. */
function row(config: Partial<deepseek.Config>): deepseek.Config {
  return config as deepseek.Config
}

/** Lets services set on `ready` appear, then settles pending lifecycle tasks. */
async function settle(ctx: Context) {
  await ctx.lifecycle.flush()
  await new Promise((resolve) => setImmediate(resolve))
  await ctx.lifecycle.flush()
}

async function startContext(): Promise<Context> {
  const ctx = new Context()
  contexts.push(ctx)
  await ctx.start()
  return ctx
}

describe('deepseek: the plugin in real Cordis contexts', () => {
  let server: FixtureServer
  let home: string
  let ref: string
  before(async () => {
    server = await FixtureServer.start()
  })
  after(() => server.close())
  beforeEach(async () => {
    server.reset()
    home = await mkdtemp(join(tmpdir(), 'dsh-deepseek-'))
    ref = `DSH_TEST_DEEPSEEK_KEY_${process.pid}_${++refCounter}`
  })
  afterEach(async () => {
    for (const ctx of contexts.splice(0)) await ctx.stop()
    delete process.env[ref]
    await rm(home, { recursive: true, force: true })
  })

  async function compose(options: { credentials?: boolean; session?: boolean; config?: Partial<deepseek.Config> } = {}) {
    const ctx = await startContext()
    ctx.plugin(web, { searchProvider: 'deepseek-official', fetchProvider: 'http' })
    if (options.credentials !== false) ctx.plugin(credentials, { home })
    if (options.session !== false) ctx.plugin(sessions, { home })
    ctx.plugin(deepseek, row({ apiKeyEnv: ref, baseURL: `${server.url}/anthropic`, ...options.config }))
    await settle(ctx)
    return ctx
  }

  function logPath(id: string) {
    return join(home, 'sessions', id, 'events.jsonl')
  }

  async function logText(id: string) {
    return readFile(logPath(id), 'utf8').catch((error) => (error.code === 'ENOENT' ? '' : Promise.reject(error)))
  }

  it('registers deepseek-official while mounted and removes it on dispose', async () => {
    const ctx = await startContext()
    ctx.plugin(web, { searchProvider: 'deepseek-official', fetchProvider: 'http' })
    const fork = ctx.plugin(deepseek, row({ apiKeyEnv: ref, baseURL: `${server.url}/anthropic` }))
    await settle(ctx)
    assert.deepEqual(ctx.web.listProviders().search, ['deepseek-official'])
    fork.dispose()
    await settle(ctx)
    assert.deepEqual(ctx.web.listProviders().search, [])
  })

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms', () => {
    const config = deepseek.Config(row({}))
    assert.deepEqual(
      { ...config },
      { apiKeyEnv: 'DEEPSEEK_API_KEY', model: 'deepseek-v4-flash', maxTokens: 4096, maxUses: 3, apiVersion: '2023-06-01', timeoutMs: 60_000, maxRetries: 2 },
    )
    assert.equal(deepseek.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(deepseek.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(deepseek.name, 'dsh-web-search-deepseek')
  })

  it('missing key, then stored through the credentials service, then rotated: each search reads the current key', async () => {
    const ctx = await compose()
    const session = await ctx.session.create()

    const missing = await rejection(ctx.web.search({ query: 'q' }, { signal: new AbortController().signal, session }))
    assert.equal(missing.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
    assert.match(missing.message, new RegExp(`dsh credentials set ${ref}`))
    assert.equal(server.requests.length, 0)
    assert.deepEqual(ctx.web.listProviders().search, ['deepseek-official'], 'the provider stays registered')
    assert.deepEqual((await ctx.session.read(session.id)).filter((event) => event.type === EVENT), [], 'no event when the key was missing')

    await ctx.credentials.set(ref, 'sk-stored-first-1111')
    server.reply('deepseek-multi-result', 'deepseek-multi-result')
    const first = await ctx.web.search({ query: 'first' }, { signal: new AbortController().signal, session })
    assert.equal(first.sources.length, 4)
    assert.equal(server.requests[0]!.headers['x-api-key'], 'sk-stored-first-1111')

    await ctx.credentials.set(ref, 'sk-rotated-second-2222')
    await ctx.web.search({ query: 'second' }, { signal: new AbortController().signal, session })
    assert.equal(server.requests[1]!.headers['x-api-key'], 'sk-rotated-second-2222', 'the rotated key is used by the very next search')

    const events = (await ctx.session.read(session.id)).filter((event) => event.type === EVENT)
    assert.equal(events.length, 2)
    for (const [index, event] of events.entries()) {
      assert.equal(event.visibility, 'log')
      const data = event.data as Record<string, any>
      assert.equal(data.endpoint, `${server.url}/anthropic/v1/messages`)
      assert.equal(data.apiVersion, '2023-06-01')
      assert.equal(data.attempt, 1)
      assert.equal(JSON.stringify(data.body), server.requests[index]!.body, 'the exact JSON body sent')
      assert.deepEqual(Object.keys(data).sort(), ['apiVersion', 'attempt', 'body', 'endpoint', 'providerId'])
    }
    const bytes = await logText(session.id)
    for (const secret of ['sk-stored-first-1111', 'sk-rotated-second-2222', '1111', '2222']) {
      assert.ok(!bytes.includes(secret), `the session log never holds the key (${secret})`)
    }
    assert.ok(!/x-api-key/i.test(bytes), 'no headers in the log')
  })

  it('a credentials service mounted after the plugin is still used (optional inject)', async () => {
    const ctx = await startContext()
    ctx.plugin(web, { searchProvider: 'deepseek-official', fetchProvider: 'http' })
    ctx.plugin(deepseek, row({ apiKeyEnv: ref, baseURL: `${server.url}/anthropic`, apiKey: 'sk-literal-should-lose' }))
    await settle(ctx)
    ctx.plugin(credentials, { home })
    await settle(ctx)
    await ctx.credentials.set(ref, 'sk-late-service-3333')
    server.reply('deepseek-multi-result')
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal })
    assert.equal(server.requests[0]!.headers['x-api-key'], 'sk-late-service-3333')
  })

  it('literal apiKey last: used when neither the service nor the environment has the key', async () => {
    const ctx = await compose({ config: { apiKey: 'sk-literal-4444' } })
    server.reply('deepseek-multi-result')
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal })
    assert.equal(server.requests[0]!.headers['x-api-key'], 'sk-literal-4444')
  })

  it('environment only (no credentials service mounted): the launching environment supplies the key', async () => {
    process.env[ref] = 'sk-env-only-5555'
    const ctx = await compose({ credentials: false, config: { apiKey: 'sk-literal-loses' } })
    server.reply('deepseek-multi-result')
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal })
    assert.equal(server.requests[0]!.headers['x-api-key'], 'sk-env-only-5555')
  })

  it('no service, no environment, no literal: WEB_PROVIDER_CREDENTIAL_MISSING', async () => {
    const ctx = await compose({ credentials: false })
    const error = await rejection(ctx.web.search({ query: 'q' }, { signal: new AbortController().signal }))
    assert.equal(error.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
    assert.equal(server.requests.length, 0)
  })

  it('one log-only event per HTTP attempt (429 then success gives attempts 1 and 2)', async () => {
    const ctx = await compose({ config: { apiKey: 'sk-literal-6666' } })
    const session = await ctx.session.create()
    server.reply(
      { status: 429, headers: { 'retry-after': '0' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } },
      'deepseek-multi-result',
    )
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal, session, callId: 'call-7' })
    const events = (await ctx.session.read(session.id)).filter((event) => event.type === EVENT)
    assert.deepEqual(events.map((event) => (event.data as any).attempt), [1, 2])
    assert.deepEqual(events.map((event) => (event.data as any).callId), ['call-7', 'call-7'])
    assert.ok(events.every((event) => event.visibility === 'log'))
    assert.ok(!(await logText(session.id)).includes('sk-literal-6666'))
  })

  it('cancellation during credential resolution: WEB_ABORTED, nothing dispatched, no event', async () => {
    let resolving!: () => void
    const started = new Promise<void>((resolve) => (resolving = resolve))
    class HangingCredentials extends Service {
      constructor(ctx: Context) {
        super(ctx, 'credentials')
      }
      resolve(): Promise<undefined> {
        resolving()
        return new Promise(() => {})
      }
    }
    const ctx = await compose({ credentials: false })
    ctx.plugin(HangingCredentials)
    await settle(ctx)
    const session = await ctx.session.create()
    const controller = new AbortController()
    const pending = rejection(ctx.web.search({ query: 'q' }, { signal: controller.signal, session }))
    await started
    controller.abort()
    const error = await pending
    assert.equal(error.code, 'WEB_ABORTED')
    assert.equal(server.requests.length, 0)
    assert.deepEqual((await ctx.session.read(session.id)).filter((event) => event.type === EVENT), [])
  })

  it('a deadline during credential resolution is WEB_TIMEOUT', async () => {
    class HangingCredentials extends Service {
      constructor(ctx: Context) {
        super(ctx, 'credentials')
      }
      resolve(): Promise<undefined> {
        return new Promise(() => {})
      }
    }
    const ctx = await compose({ credentials: false })
    ctx.plugin(HangingCredentials)
    await settle(ctx)
    const error = await rejection(ctx.web.search({ query: 'q' }, { signal: AbortSignal.timeout(50) }))
    assert.equal(error.code, 'WEB_TIMEOUT')
    assert.equal(server.requests.length, 0)
  })

  function stallAfterHeaders(onStall: (response: ServerResponse, request: IncomingMessage) => void) {
    server.replyWith((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' })
      response.write('{"id":"msg_1","type":"message","role":"assistant","content":[', () => onStall(response, request))
    })
  }

  it('cancellation during the body read aborts the socket: WEB_ABORTED, the server sees the connection close', async () => {
    const ctx = await compose({ config: { apiKey: 'sk-literal-7777' } })
    const session = await ctx.session.create()
    const controller = new AbortController()
    let closed!: Promise<void>
    const stalled = new Promise<void>((resolve) => {
      stallAfterHeaders((response) => {
        closed = new Promise((done) => response.on('close', () => done()))
        resolve()
      })
    })
    const pending = rejection(ctx.web.search({ query: 'q' }, { signal: controller.signal, session }))
    await stalled
    controller.abort()
    const error = await pending
    assert.equal(error.code, 'WEB_ABORTED')
    await closed
    const events = (await ctx.session.read(session.id)).filter((event) => event.type === EVENT)
    assert.equal(events.length, 1, 'the request was dispatched, so its event is there')
  })

  it('the provider deadline during the body read is WEB_TIMEOUT', async () => {
    const ctx = await compose({ config: { apiKey: 'sk-literal-8888', timeoutMs: 200 } })
    let closed!: Promise<void>
    stallAfterHeaders((response) => {
      closed = new Promise((done) => response.on('close', () => done()))
    })
    const error = await rejection(ctx.web.search({ query: 'q' }, { signal: new AbortController().signal }))
    assert.equal(error.code, 'WEB_TIMEOUT')
    await closed
  })
})
