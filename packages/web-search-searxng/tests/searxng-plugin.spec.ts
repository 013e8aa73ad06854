import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Context, Service } from 'cordis'
import * as web from 'dsh-web'
import { credentials, session as sessions } from '../../../tests/support/host-services.js'
import { itLogsEveryAttempt, itRegistersWhileMounted, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject } from '../../../tests/support/plugin-contract.js'
import { hostCredentials } from '../../../tests/support/host-credentials.js'
import { rejection } from '../../../tests/support/provider-harness.js'
import * as searxng from '../src/index.js'
import { basicAuth, FIXTURES } from './helpers.js'

/**
 * The shared contract speaks of a keyed provider's row (`apiKeyEnv`, `apiKey`);
 * this one's keys are `authEnv` and `authValue`. The contract mounts this
 * adapter, which hands its keys over as those, with authScheme bearer (its
 * test keys are tokens) and maxResults 4 (its good answer is one page of four).
 */
const contractPlugin = {
  name: searxng.name,
  inject: searxng.inject,
  apply(ctx: Context, row: { apiKeyEnv?: string; apiKey?: string; [key: string]: unknown }) {
    const { apiKeyEnv, apiKey, ...rest } = row
    searxng.apply(ctx, searxng.Config({ ...rest, authEnv: apiKeyEnv, authValue: apiKey, authScheme: 'bearer', maxResults: 4 }))
  },
}

const subject: SearchPluginSubject = {
  plugin: contractPlugin,
  providerId: 'searxng',
  name: 'searxng',
  event: 'web/searxng-search-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => `${server.url}/searxng`,
  multiResult: 'searxng-multi-result',
  rateLimited: { status: 429, headers: { 'retry-after': '0', 'content-type': 'text/plain' }, rawBody: 'Too Many Requests' },
  bodyPrefix: '{"query":"q","results":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers.authorization, `Bearer ${key}`, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/searxng/search`)
    assert.deepEqual(Object.keys(data).sort(), ['attempt', 'auth', 'endpoint', 'page', 'providerId', 'queryString', 'route'])
  },
  credentialHeader: /authorization|bearer|basic /i,
  baseURLEnv: 'SEARXNG_BASE_URL',
}

/** A credentials service whose every lookup fails the test: the keyless row must never ask. */
class UntouchableCredentials extends Service {
  constructor(ctx: Context) {
    super(ctx, 'credentials')
  }
  resolve(): never {
    throw new Error('the keyless searxng row looked up a credential')
  }
}

describe('searxng: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)
  const { server } = harness

  /** web, the host's credentials and session services, and this plugin itself (not the contract's adapter) with `config`. */
  async function compose(config: Partial<searxng.Config>): Promise<Context> {
    const ctx = await harness.startContext()
    ctx.plugin(web, { searchProvider: 'searxng', fetchProvider: 'http' })
    ctx.plugin(credentials, { home: harness.home })
    ctx.plugin(sessions, { home: harness.home })
    ctx.plugin(searxng, { baseURL: `${server.url}/searxng`, maxResults: 4, ...config })
    await harness.settle(ctx)
    return ctx
  }

  itRegistersWhileMounted(harness)

  it('Config: real defaults, no base URL and no credential by default, authValue marked secret, timeoutMs marked ms', () => {
    const config = searxng.Config({} as searxng.Config)
    assert.deepEqual({ ...config }, { authScheme: 'basic', categories: [], engines: [], maxResults: 10, maxPages: 2, timeoutMs: 30_000, maxRetries: 2 })
    assert.equal(searxng.Config.dict!.authValue!.meta.role, 'secret')
    assert.equal(searxng.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(searxng.name, 'dsh-web-search-searxng')
    assert.throws(() => searxng.Config({ safesearch: 3 } as never))
    assert.throws(() => searxng.Config({ timeRange: 'decade' } as never))
  })

  it('keyless: no credential looked up, no Authorization sent, one log-only event per request with the exact query string', async () => {
    const ctx = await harness.startContext()
    ctx.plugin(web, { searchProvider: 'searxng', fetchProvider: 'http' })
    ctx.plugin(UntouchableCredentials)
    ctx.plugin(sessions, { home: harness.home })
    ctx.plugin(searxng, { baseURL: `${server.url}/searxng`, language: 'en', maxResults: 4 })
    await harness.settle(ctx)
    const session = await ctx.session.create()
    server.reply('searxng-multi-result')
    const result = await ctx.web.search({ query: 'rust async runtime' }, { signal: new AbortController().signal, session, callId: 'call-1' })
    assert.equal(result.sources.length, 4)
    assert.equal(server.requests[0]!.headers.authorization, undefined)
    const events = (await ctx.session.read(session.id)).filter((event) => event.type === 'web/searxng-search-request')
    assert.equal(events.length, 1)
    assert.equal(events[0]!.visibility, 'log')
    assert.deepEqual(events[0]!.data, {
      providerId: 'searxng',
      endpoint: `${server.url}/searxng/search`,
      queryString: 'q=rust+async+runtime&format=json&pageno=1&language=en',
      page: 1,
      attempt: 1,
      auth: 'none',
      route: 'direct',
      callId: 'call-1',
    })
    assert.equal(`/searxng/search?${(events[0]!.data as any).queryString}`, server.requests[0]!.path, 'the query string as received')
  })

  it('basic auth: missing, then stored through the credentials service, then rotated; each search reads the current value; no trace in the log', async () => {
    const ctx = await compose({ authEnv: harness.ref })
    const session = await ctx.session.create()
    const signal = new AbortController().signal

    const missing = await rejection(ctx.web.search({ query: 'q' }, { signal, session }))
    assert.equal(missing.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
    assert.match(missing.message, new RegExp(`dsh credentials set ${harness.ref}`))
    assert.match(missing.message, /or set `authValue` in the provider's config row/)
    assert.equal(server.requests.length, 0)
    assert.deepEqual((await ctx.session.read(session.id)).filter((event) => event.type === subject.event), [], 'no event when the credential was missing')

    await hostCredentials(ctx).set(harness.ref, 'agent:first-pass-1111')
    server.reply('searxng-multi-result', 'searxng-multi-result')
    await ctx.web.search({ query: 'first' }, { signal, session })
    assert.equal(server.requests[0]!.headers.authorization, basicAuth('agent:first-pass-1111'))

    await hostCredentials(ctx).set(harness.ref, 'agent:rotated-pass-2222')
    await ctx.web.search({ query: 'second' }, { signal, session })
    assert.equal(server.requests[1]!.headers.authorization, basicAuth('agent:rotated-pass-2222'), 'the rotated value is used by the very next search')

    const events = (await ctx.session.read(session.id)).filter((event) => event.type === subject.event)
    assert.deepEqual(events.map((event) => [(event.data as any).queryString, (event.data as any).auth]), [
      ['q=first&format=json&pageno=1', 'basic'],
      ['q=second&format=json&pageno=1', 'basic'],
    ])
    const bytes = await harness.logText(session.id)
    for (const secret of ['first-pass-1111', 'rotated-pass-2222', '1111', '2222', basicAuth('agent:first-pass-1111').slice(6), basicAuth('agent:rotated-pass-2222').slice(6)]) {
      assert.ok(!bytes.includes(secret), `the session log never holds the credential (${secret})`)
    }
    assert.ok(!/authorization/i.test(bytes), 'no headers in the log')
  })

  it('a credentials service mounted after the plugin is still used (optional inject)', async () => {
    const ctx = await harness.startContext()
    ctx.plugin(web, { searchProvider: 'searxng', fetchProvider: 'http' })
    ctx.plugin(searxng, { baseURL: `${server.url}/searxng`, authEnv: harness.ref, authValue: 'agent:literal-loses', maxResults: 4 })
    await harness.settle(ctx)
    ctx.plugin(credentials, { home: harness.home })
    await harness.settle(ctx)
    await hostCredentials(ctx).set(harness.ref, 'agent:late-service-3333')
    server.reply('searxng-multi-result')
    await ctx.web.search({ query: 'q' }, { signal: new AbortController().signal })
    assert.equal(server.requests[0]!.headers.authorization, basicAuth('agent:late-service-3333'))
  })

  it('the literal authValue last; a 401 then names it as "the literal authValue of the config row"', async () => {
    const ctx = await compose({ authEnv: harness.ref, authValue: 'agent:literal-4444' })
    server.reply('searxng-401-basic-auth')
    const error = await rejection(ctx.web.search({ query: 'q' }, { signal: new AbortController().signal }))
    assert.equal(server.requests[0]!.headers.authorization, basicAuth('agent:literal-4444'))
    assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
    assert.match(error.message, /refused the literal authValue of the config row \(HTTP 401, asking for Basic authentication\)/)
    assert.ok(!error.message.includes('literal-4444'))
  })

  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
