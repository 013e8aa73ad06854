// What every search provider plugin must do in a real Cordis composition: be
// registered while mounted, read its key per call through the seam's helper,
// log each HTTP attempt and honour cancellation and deadlines. A provider's
// plugin spec calls these inside its own `describe`, next to the tests that
// are its alone (Config defaults, the request headers and the event's fields).
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, it } from 'node:test'
import { Context, type Plugin, Service } from 'cordis'
import * as web from 'dsh-web'
import * as credentials from 'dsh-harness/credentials'
import * as sessions from 'dsh-harness/session'
import { type Fixture, type FixtureServer, type ReceivedRequest, useFixtureServer } from './fixture-server.js'
import { rejection } from './provider-harness.js'
import { hostCredentials } from './host-credentials.js'

/** A search provider's config row, as far as these tests set it; the schema fills the rest. */
export interface SearchRow {
  apiKeyEnv?: string
  apiKey?: string
  baseURL?: string
  timeoutMs?: number
}

export interface SearchPluginSubject {
  /** The plugin module, as a composition mounts it. */
  plugin: Plugin.Object<Context, any>
  providerId: string
  /** Names temp folders and credential references, e.g. deepseek. */
  name: string
  /** The log-only event of each HTTP attempt. */
  event: string
  fixturesDir: URL
  /** The row's baseURL pointing at the fixture server. */
  baseURL(server: FixtureServer): string
  /** A good answer. */
  multiResult: string
  /** A 429 with `retry-after: 0`, in the vendor's error format. */
  rateLimited: Fixture
  /** The first bytes of a good answer, after which the server stalls. */
  bodyPrefix: string
  /** Asserts the request carried `key` the way the vendor wants it. */
  assertKeySent(request: ReceivedRequest, key: string, message?: string): void
  /** Asserts the vendor's own fields of a request event: the endpoint, and exactly which keys it has. */
  assertEventFields(data: Record<string, any>, server: FixtureServer): void
  /** Asserts that a request event records the request the server received; by default, its `body` is the exact body sent. */
  assertEventRecords?(data: Record<string, any>, request: ReceivedRequest): void
  /** What the credential header looks like, so that the session log is checked for it. */
  credentialHeader: RegExp
  /** The environment variable read when the row sets no baseURL, named in the unavailable reason. */
  baseURLEnv: string
}

export interface PluginHarness {
  readonly subject: SearchPluginSubject
  readonly server: FixtureServer
  /** This test's home folder for the credentials store and sessions. */
  readonly home: string
  /** This test's credential name; unset in the environment after the test. */
  readonly ref: string
  /** A fresh started context, stopped after the test. */
  startContext(): Promise<Context>
  /** Lets services set on `ready` appear, then settles pending lifecycle tasks. */
  settle(ctx: Context): Promise<void>
  /** web, credentials (unless false), session (unless false) and the plugin with `apiKeyEnv: ref` and the fixture server's baseURL. */
  compose(options?: { credentials?: boolean; session?: boolean; config?: SearchRow }): Promise<Context>
  /** The session's events.jsonl as text, '' before it exists. */
  logText(sessionId: string): Promise<string>
  /** Mounts the plugin with its credential reference and the fixture server's baseURL. */
  mountPlugin(ctx: Context, config?: SearchRow): ReturnType<Context['plugin']>
}

let refCounter = 0

/** One fixture server for the enclosing `describe`, and a fresh home, credential name and contexts per test. */
export function usePluginHarness(subject: SearchPluginSubject): PluginHarness {
  const server = useFixtureServer(subject.fixturesDir)
  const contexts: Context[] = []
  let home = ''
  let ref = ''
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), `dsh-${subject.name}-`))
    ref = `DSH_TEST_${subject.name.toUpperCase()}_KEY_${process.pid}_${++refCounter}`
  })
  afterEach(async () => {
    for (const ctx of contexts.splice(0)) await ctx.stop()
    delete process.env[ref]
    await rm(home, { recursive: true, force: true })
  })

  const harness: PluginHarness = {
    subject,
    server,
    get home() {
      return home
    },
    get ref() {
      return ref
    },
    async startContext() {
      const ctx = new Context()
      contexts.push(ctx)
      await ctx.start()
      return ctx
    },
    async settle(ctx) {
      await ctx.lifecycle.flush()
      await new Promise((resolve) => setImmediate(resolve))
      await ctx.lifecycle.flush()
    },
    mountPlugin(ctx, config = {}) {
      return ctx.plugin(subject.plugin, { apiKeyEnv: ref, baseURL: subject.baseURL(server), ...config })
    },
    async compose(options = {}) {
      const ctx = await harness.startContext()
      ctx.plugin(web, { searchProvider: subject.providerId, fetchProvider: 'http' })
      if (options.credentials !== false) ctx.plugin(credentials, { home })
      if (options.session !== false) ctx.plugin(sessions, { home })
      harness.mountPlugin(ctx, options.config)
      await harness.settle(ctx)
      return ctx
    },
    async logText(sessionId) {
      return readFile(join(home, 'sessions', sessionId, 'events.jsonl'), 'utf8').catch((error) => (error.code === 'ENOENT' ? '' : Promise.reject(error)))
    },
  }
  return harness
}

export function itRegistersWhileMounted(harness: PluginHarness): void {
  const { subject } = harness
  it(`registers ${subject.providerId} while mounted and removes it on dispose`, async () => {
    const ctx = await harness.startContext()
    ctx.plugin(web, { searchProvider: subject.providerId, fetchProvider: 'http' })
    const fork = harness.mountPlugin(ctx)
    await harness.settle(ctx)
    assert.deepEqual(ctx.web.listProviders().search, [subject.providerId])
    fork.dispose()
    await harness.settle(ctx)
    assert.deepEqual(ctx.web.listProviders().search, [])
  })

  it(`closes ${subject.providerId}'s HTTP client on dispose: a reference kept past disposal reaches no server`, async () => {
    const { server } = harness
    const ctx = await harness.startContext()
    ctx.plugin(web, { searchProvider: subject.providerId, fetchProvider: 'http' })
    const fork = harness.mountPlugin(ctx)
    await harness.settle(ctx)
    process.env[harness.ref] = 'sk-dispose-test-1111'
    const provider = ctx.web.searchProvider()
    const call = () => ({ signal: new AbortController().signal })
    server.reply(subject.multiResult, subject.multiResult)
    await provider.search({ query: 'mounted' }, call())
    assert.equal(server.requests.length, 1)
    fork.dispose()
    await harness.settle(ctx)
    await rejection(provider.search({ query: 'disposed' }, call()))
    assert.equal(server.requests.length, 1, 'no request after disposal')
  })
}

/** The key is read at every search: from the credentials service (even one mounted late), else the environment, else the literal. */
export function itResolvesTheKeyAtEveryCall(harness: PluginHarness): void {
  const { subject, server } = harness

  it('missing key, then stored through the credentials service, then rotated: each search reads the current key', async () => {
    const ctx = await harness.compose()
    const session = await ctx.session.create()

    const missing = await rejection(ctx.web.search({ query: 'q' }, { signal: new AbortController().signal, session }))
    assert.equal(missing.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
    assert.match(missing.message, new RegExp(`dsh credentials set ${harness.ref}`))
    assert.equal(server.requests.length, 0)
    assert.deepEqual(ctx.web.listProviders().search, [subject.providerId], 'the provider stays registered')
    assert.deepEqual((await ctx.session.read(session.id)).filter((event) => event.type === subject.event), [], 'no event when the key was missing')

    await hostCredentials(ctx).set(harness.ref, 'sk-stored-first-1111')
    server.reply(subject.multiResult, subject.multiResult)
    const first = await ctx.web.search({ query: 'first' }, { signal: new AbortController().signal, session })
    assert.equal(first.sources.length, 4)
    subject.assertKeySent(server.requests[0]!, 'sk-stored-first-1111')

    await hostCredentials(ctx).set(harness.ref, 'sk-rotated-second-2222')
    await ctx.web.search({ query: 'second' }, { signal: new AbortController().signal, session })
    subject.assertKeySent(server.requests[1]!, 'sk-rotated-second-2222', 'the rotated key is used by the very next search')

    const events = (await ctx.session.read(session.id)).filter((event) => event.type === subject.event)
    assert.equal(events.length, 2)
    for (const [index, event] of events.entries()) {
      assert.equal(event.visibility, 'log')
      const data = event.data as Record<string, any>
      subject.assertEventFields(data, server)
      assert.equal(data.attempt, 1)
      if (subject.assertEventRecords) subject.assertEventRecords(data, server.requests[index]!)
      else assert.equal(JSON.stringify(data.body), server.requests[index]!.body, 'the exact JSON body sent')
    }
    const bytes = await harness.logText(session.id)
    // The keys and their distinctive tails (a bare '1111' also turns up by chance in ids, hashes and durations).
    for (const secret of ['sk-stored-first-1111', 'sk-rotated-second-2222', 'first-1111', 'second-2222']) {
      assert.ok(!bytes.includes(secret), `the session log never holds the key (${secret})`)
    }
    assert.ok(!subject.credentialHeader.test(bytes), 'no headers in the log')
  })

  it('a credentials service mounted after the plugin is still used (optional inject)', async () => {
    const ctx = await harness.startContext()
    ctx.plugin(web, { searchProvider: subject.providerId, fetchProvider: 'http' })
    harness.mountPlugin(ctx, { apiKey: 'sk-literal-should-lose' })
    await harness.settle(ctx)
    ctx.plugin(credentials, { home: harness.home })
    await harness.settle(ctx)
    await hostCredentials(ctx).set(harness.ref, 'sk-late-service-3333')
    server.reply(subject.multiResult)
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal })
    subject.assertKeySent(server.requests[0]!, 'sk-late-service-3333')
  })

  it('literal apiKey last: used when neither the service nor the environment has the key', async () => {
    const ctx = await harness.compose({ config: { apiKey: 'sk-literal-4444' } })
    server.reply(subject.multiResult)
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal })
    subject.assertKeySent(server.requests[0]!, 'sk-literal-4444')
  })

  it('environment only (no credentials service mounted): the launching environment supplies the key', async () => {
    process.env[harness.ref] = 'sk-env-only-5555'
    const ctx = await harness.compose({ credentials: false, config: { apiKey: 'sk-literal-loses' } })
    server.reply(subject.multiResult)
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal })
    subject.assertKeySent(server.requests[0]!, 'sk-env-only-5555')
  })

  it('no service, no environment, no literal: WEB_PROVIDER_CREDENTIAL_MISSING', async () => {
    const ctx = await harness.compose({ credentials: false })
    const error = await rejection(ctx.web.search({ query: 'q' }, { signal: new AbortController().signal }))
    assert.equal(error.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
    assert.equal(server.requests.length, 0)
  })
}

/** A row that boots but cannot search says why when the search is refused. */
export function itSaysWhyItIsUnavailable(harness: PluginHarness): void {
  const { subject, server } = harness
  it('regression: a row with baseURL "not a url" boots, and a search names the bad setting (not only "check its config row")', async () => {
    const ctx = await harness.compose({ config: { baseURL: 'not a url' } })
    assert.deepEqual(ctx.web.listProviders().search, [subject.providerId], 'the row boots and registers')
    const error = await rejection(ctx.web.search({ query: 'q' }, { signal: new AbortController().signal }))
    assert.equal(error.code, 'WEB_PROVIDER_UNAVAILABLE')
    const reason = `baseURL "not a url" is not a valid URL; set baseURL or ${subject.baseURLEnv}`
    assert.equal(
      error.message,
      `The configured search provider "${subject.providerId}" is registered but not available: ${reason}. Registered search providers: ${subject.providerId}.`,
    )
    assert.equal(error.details.reason, reason)
    assert.equal(server.requests.length, 0)
  })
}

export function itLogsEveryAttempt(harness: PluginHarness): void {
  const { subject, server } = harness
  it('one log-only event per HTTP attempt (429 then success gives attempts 1 and 2)', async () => {
    const ctx = await harness.compose({ config: { apiKey: 'sk-literal-6666' } })
    const session = await ctx.session.create()
    server.reply(subject.rateLimited, subject.multiResult)
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal, session, callId: 'call-7' })
    const events = (await ctx.session.read(session.id)).filter((event) => event.type === subject.event)
    assert.deepEqual(events.map((event) => (event.data as any).attempt), [1, 2])
    assert.deepEqual(events.map((event) => (event.data as any).callId), ['call-7', 'call-7'])
    assert.ok(events.every((event) => event.visibility === 'log'))
    assert.ok(!(await harness.logText(session.id)).includes('sk-literal-6666'))
  })
}

/** A credentials service whose lookup never settles; `onResolve` runs when it is asked. */
function hangingCredentials(onResolve: () => void = () => {}) {
  return class HangingCredentials extends Service {
    constructor(ctx: Context) {
      super(ctx, 'credentials')
    }
    resolve(): Promise<undefined> {
      onResolve()
      return new Promise(() => {})
    }
  }
}

/** Cancellation and deadlines before dispatch and during the body read. */
export function itStopsOnCancellationAndDeadlines(harness: PluginHarness): void {
  const { subject, server } = harness

  it('cancellation during credential resolution: WEB_ABORTED, nothing dispatched, no event', async () => {
    let resolving!: () => void
    const started = new Promise<void>((resolve) => (resolving = resolve))
    const ctx = await harness.compose({ credentials: false })
    ctx.plugin(hangingCredentials(() => resolving()))
    await harness.settle(ctx)
    const session = await ctx.session.create()
    const controller = new AbortController()
    const pending = rejection(ctx.web.search({ query: 'q' }, { signal: controller.signal, session }))
    await started
    controller.abort()
    const error = await pending
    assert.equal(error.code, 'WEB_ABORTED')
    assert.equal(server.requests.length, 0)
    assert.deepEqual((await ctx.session.read(session.id)).filter((event) => event.type === subject.event), [])
  })

  it('a deadline during credential resolution is WEB_TIMEOUT', async () => {
    const ctx = await harness.compose({ credentials: false })
    ctx.plugin(hangingCredentials())
    await harness.settle(ctx)
    const error = await rejection(ctx.web.search({ query: 'q' }, { signal: AbortSignal.timeout(50) }))
    assert.equal(error.code, 'WEB_TIMEOUT')
    assert.equal(server.requests.length, 0)
  })

  function stallAfterHeaders(onStall: (response: ServerResponse, request: IncomingMessage) => void) {
    server.replyWith((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' })
      response.write(subject.bodyPrefix, () => onStall(response, request))
    })
  }

  it('cancellation during the body read aborts the socket: WEB_ABORTED, the server sees the connection close', async () => {
    const ctx = await harness.compose({ config: { apiKey: 'sk-literal-7777' } })
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
    const events = (await ctx.session.read(session.id)).filter((event) => event.type === subject.event)
    assert.equal(events.length, 1, 'the request was dispatched, so its event is there')
  })

  it('the provider deadline during the body read is WEB_TIMEOUT', async () => {
    const ctx = await harness.compose({ config: { apiKey: 'sk-literal-8888', timeoutMs: 200 } })
    let closed!: Promise<void>
    stallAfterHeaders((response) => {
      closed = new Promise((done) => response.on('close', () => done()))
    })
    const error = await rejection(ctx.web.search({ query: 'q' }, { signal: new AbortController().signal }))
    assert.equal(error.code, 'WEB_TIMEOUT')
    await closed
  })
}
