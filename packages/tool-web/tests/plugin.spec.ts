import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Context } from 'cordis'
import * as toolWeb from 'dsh-tool-web'
import * as web from 'dsh-web'
import { mergeSources } from 'dsh-tool-web'
import { resolveCredential, type SearchProvider } from 'dsh-web'
import { mount, pagingFetch, source } from './helpers.js'

describe('dsh-tool-web plugin', () => {
  it('has the real defaults and refuses values outside the limits', () => {
    assert.deepEqual(toolWeb.Config({}), {
      search: true,
      fetch: false,
      searchTimeoutMs: 30_000,
      searchMaxQueries: 4,
      fetchTimeoutMs: 30_000,
      fetchMaxChars: 20_000,
      outputThreshold: 50_000,
      provenance: 'off',
      provenanceSameOrigin: false,
    })
    assert.throws(() => toolWeb.Config({ provenance: 'strict' as any }))
    assert.equal(toolWeb.Config({ fetchMaxChars: 100_000 }).fetchMaxChars, 100_000)
    assert.throws(() => toolWeb.Config({ fetchMaxChars: 100_001 }))
    assert.throws(() => toolWeb.Config({ searchMaxQueries: 0 }))
    assert.throws(() => toolWeb.Config({ searchTimeoutMs: 0 }))
    assert.equal(toolWeb.name, 'dsh-tool-web')
    // Waited for inside apply (dsh-host's startWhenProvided), so that a missing service is said in the log.
    assert.deepEqual(toolWeb.inject, { web: { required: false }, tools: { required: false }, network: { required: false } })
  })

  it('refuses a config key it does not declare, under any host, naming the key and the known ones', async () => {
    const ctx = new Context()
    const failures: unknown[] = []
    ctx.on('internal/error', (error: unknown) => void failures.push(error))
    const fork = ctx.plugin(toolWeb, { fetch: true, fecthMaxChars: 500 } as any)
    await ctx.start()
    const error = (fork.runtime.error ?? fork.error ?? failures[0]) as any
    assert.equal(error?.code, 'CONFIG_UNKNOWN_KEY', String(error))
    assert.match(error.message, /dsh-tool-web refuses its config: key "fecthMaxChars" is not a config key of this plugin \(known: search, fetch, .*fetchMaxChars/)
    await ctx.stop()
  })

  it('says what it waits for until its services arrive, then registers its tools', async () => {
    const ctx = new Context()
    ctx.plugin(toolWeb, { search: false, fetch: true })
    await ctx.start()
    const applied = () => ctx.registry.get(toolWeb as any)!.ctx
    assert.deepEqual(toolWeb.waitingFor(applied()), ['web', 'tools'])
    ctx.plugin(web, {})
    await ctx.lifecycle.flush()
    assert.deepEqual(toolWeb.waitingFor(applied()), ['tools'])
    const registered: string[] = []
    ctx.plugin({ name: 'tiny-tools', apply: (host: Context) => host.set('tools', { register: (tool: { name: string }) => (registered.push(tool.name), () => {}), has: () => false } as any) })
    await ctx.lifecycle.flush()
    assert.deepEqual(registered, ['web_fetch'])
    assert.deepEqual(toolWeb.waitingFor(applied()), [])
    await ctx.stop()
  })

  it('registers both tools when fetch is on, each declaring the net_read effect and a closed schema', async () => {
    const { ctx, cleanup } = await mount()
    try {
      const listed = ctx.tools.list()
      assert.deepEqual(listed.map((tool) => tool.name), ['web_fetch', 'web_search'])
      for (const tool of listed) {
        assert.deepEqual(tool.effects, ['net_read'])
        assert.equal(tool.inputSchema.additionalProperties, false)
        assert.match(tool.description, /untrusted/)
      }
      const search = listed.find((tool) => tool.name === 'web_search')!
      assert.deepEqual(search.inputSchema.required, ['queries'])
      assert.equal((search.inputSchema.properties.queries as any).maxItems, 4)
      const fetch = listed.find((tool) => tool.name === 'web_fetch')!
      assert.deepEqual(Object.keys(fetch.inputSchema.properties), ['url', 'format', 'max_chars', 'offset', 'extract', 'find', 'query', 'pages'])
    } finally {
      await cleanup()
    }
  })

  it('registers by enablement only', async () => {
    const searchOnly = await mount({ config: { fetch: false } })
    const fetchOnly = await mount({ config: { search: false } })
    const neither = await mount({ config: { search: false, fetch: false } })
    try {
      assert.deepEqual(searchOnly.ctx.tools.list().map((tool) => tool.name), ['web_search'])
      assert.deepEqual(fetchOnly.ctx.tools.list().map((tool) => tool.name), ['web_fetch'])
      assert.deepEqual(neither.ctx.tools.list(), [])
    } finally {
      await Promise.all([searchOnly.cleanup(), fetchOnly.cleanup(), neither.cleanup()])
    }
  })

  it('keeps both tools when no provider is registered; a call fails with the typed code', async () => {
    const { ctx, cleanup } = await mount()
    try {
      assert.ok(ctx.tools.has('web_search') && ctx.tools.has('web_fetch'))
      const search = await ctx.tools.invoke('web_search', { queries: ['anything'] })
      assert.equal(search.isError, true)
      assert.equal(search.error?.code, 'WEB_PROVIDER_NOT_REGISTERED')
      assert.match(search.content, /"test-search" is not registered/)
      const fetch = await ctx.tools.invoke('web_fetch', { url: 'https://example.com/' })
      assert.equal(fetch.error?.code, 'WEB_PROVIDER_NOT_REGISTERED')
      assert.match(fetch.content, /"test-fetch" is not registered/)
    } finally {
      await cleanup()
    }
  })

  it('keeps web_search when the provider has no key; the call fails with WEB_PROVIDER_CREDENTIAL_MISSING', async () => {
    let providerCtx: Context | undefined
    const keyless: SearchProvider = {
      id: 'test-search',
      available: () => true,
      async search(request, call) {
        await resolveCredential(providerCtx!, { providerId: 'test-search', ref: 'DSH_TOOL_WEB_TEST_MISSING_KEY', signal: call.signal })
        throw new Error('unreachable: there is no key')
      },
    }
    const { ctx, cleanup } = await mount({
      plugins: [(ctx) => ctx.plugin({ name: 'keyless-search', inject: ['web'], apply: (ctx: Context) => { providerCtx = ctx; ctx.web.registerSearchProvider(keyless) } })],
    })
    try {
      assert.ok(ctx.tools.has('web_search'))
      const outcome = await ctx.tools.invoke('web_search', { queries: ['anything'] })
      assert.equal(outcome.error?.code, 'WEB_PROVIDER_CREDENTIAL_MISSING')
      assert.match(outcome.content, /dsh credentials set DSH_TOOL_WEB_TEST_MISSING_KEY/)
    } finally {
      await cleanup()
    }
  })

  it('removes its tools when disposed, and waits for the web service before registering', async () => {
    const ctx = new Context()
    const { tools } = await import('../../../tests/support/host-services.js')
    ctx.plugin(tools, { mode: 'native' })
    const fork = ctx.plugin(toolWeb, { fetch: true })
    await ctx.start()
    await ctx.lifecycle.flush()
    assert.equal(ctx.tools.has('web_search'), false, 'no web service yet: not applied')
    const web = ctx.plugin(await import('dsh-web'), { searchProvider: 'test-search', fetchProvider: 'test-fetch' })
    await ctx.lifecycle.flush()
    assert.ok(ctx.tools.has('web_search') && ctx.tools.has('web_fetch'))
    fork.dispose()
    assert.equal(ctx.tools.has('web_search'), false)
    assert.equal(ctx.tools.has('web_fetch'), false)
    web.dispose()
  })

  it('serves a fetch provider registered after the tools (selection happens at every call)', async () => {
    const { ctx, cleanup } = await mount()
    try {
      assert.equal((await ctx.tools.invoke('web_fetch', { url: 'https://a.example/' })).error?.code, 'WEB_PROVIDER_NOT_REGISTERED')
      ctx.plugin({ name: 'late-fetch', inject: ['web'], apply: (ctx: Context) => { ctx.web.registerFetchProvider(pagingFetch({ 'https://a.example/': { text: 'late' } })) } })
      await ctx.lifecycle.flush()
      const outcome = await ctx.tools.invoke('web_fetch', { url: 'https://a.example/' })
      assert.equal(outcome.isError, false, outcome.content)
    } finally {
      await cleanup()
    }
  })
})

describe('mergeSources', () => {
  it('takes rank 1 of every list, then rank 2, and keeps the first of each URL', () => {
    const merged = mergeSources([
      { query: 0, sources: [source('https://a/1', 'a1'), source('https://a/2', 'a2')] },
      { query: 1, sources: [source('https://b/1', 'b1'), source('https://a/1#x', 'dup', 'filled'), source('https://b/3', 'b3')] },
      { query: 2, sources: [] },
    ])
    assert.deepEqual(merged, [
      { url: 'https://a/1', title: 'a1', snippet: 'filled', queries: [0, 1] },
      { url: 'https://b/1', title: 'b1', queries: [1] },
      { url: 'https://a/2', title: 'a2', queries: [0] },
      { url: 'https://b/3', title: 'b3', queries: [1] },
    ])
  })
})
