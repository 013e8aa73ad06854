import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Context } from 'cordis'
import * as web from 'dsh-web'
import { type FetchProvider, type SearchProvider, WebError } from 'dsh-web'

function searchProvider(id: string, available = true, reason?: string): SearchProvider {
  const provider: SearchProvider = {
    id,
    available: () => available,
    search: async (request) => ({ providerId: id, query: request.query, queries: [request.query], sources: [], filters: [], warnings: [] }),
  }
  if (reason !== undefined) provider.unavailableReason = () => reason
  return provider
}

function fetchProvider(id: string): FetchProvider {
  return {
    id,
    available: () => true,
    fetch: async () => {
      throw new WebError('WEB_FETCH_FAILED', `fetch by ${id}`)
    },
  }
}

const call = () => ({ signal: new AbortController().signal })

async function settle(ctx: Context) {
  await ctx.start()
  await ctx.lifecycle.flush()
}

describe('WebService registries', () => {
  it('removes a provider when the plugin that registered it is disposed', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'alpha', fetchProvider: 'http' })
    const fork = ctx.plugin({ name: 'alpha-plugin', inject: ['web'], apply: (ctx: Context) => { ctx.web.registerSearchProvider(searchProvider('alpha')) } })
    await settle(ctx)
    assert.deepEqual(ctx.web.listProviders().search, ['alpha'])
    const result = await ctx.web.search({ query: 'q' }, call())
    assert.equal(result.providerId, 'alpha')
    fork.dispose()
    assert.deepEqual(ctx.web.listProviders().search, [])
    await assert.rejects(ctx.web.search({ query: 'q' }, call()), (error: unknown) => WebError.is(error) && error.code === 'WEB_PROVIDER_NOT_REGISTERED')
  })

  it('refuses a second provider with the same id of the same kind, and keeps the first', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'alpha', fetchProvider: 'alpha' })
    await settle(ctx)
    ctx.web.registerSearchProvider(searchProvider('alpha'))
    assert.throws(() => ctx.web.registerSearchProvider(searchProvider('alpha')), /already registered/)
    // The same id in the other registry is a different provider.
    ctx.web.registerFetchProvider(fetchProvider('alpha'))
    assert.deepEqual(ctx.web.listProviders(), { search: ['alpha'], fetch: ['alpha'] })
  })

  it('selects by the configured id at every call, never by registration order', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'second', fetchProvider: 'http' })
    await settle(ctx)
    ctx.web.registerSearchProvider(searchProvider('first'))
    ctx.web.registerSearchProvider(searchProvider('second'))
    assert.equal((await ctx.web.search({ query: 'q' }, call())).providerId, 'second')
  })

  it('whenProvidersRegistered resolves once the providers the row names are registered (a plugin that starts first waits for them), at once when they are', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'alpha', fetchProvider: 'http' })
    await settle(ctx)
    const order: string[] = []
    // A plugin that calls the web at its own start, mounted before the providers: what a host's agent plugin does.
    const ready = ctx.web.whenProvidersRegistered().then(() => order.push('ready'))
    ctx.plugin({ name: 'alpha-plugin', inject: ['web'], apply: (ctx: Context) => { order.push('alpha'); ctx.web.registerSearchProvider(searchProvider('alpha')) } })
    await settle(ctx)
    assert.deepEqual(order, ['alpha'], 'the fetch provider "http" is still missing')
    ctx.plugin({ name: 'http-plugin', inject: ['web'], apply: (ctx: Context) => { order.push('http'); ctx.web.registerFetchProvider(fetchProvider('http')) } })
    await ready
    assert.deepEqual(order, ['alpha', 'http', 'ready'])
    assert.equal((await ctx.web.search({ query: 'q' }, call())).providerId, 'alpha')
    await ctx.web.whenProvidersRegistered()
  })

  it('whenProvidersRegistered rejects with WEB_ABORTED naming what is missing when its signal aborts', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'never-mounted' })
    await settle(ctx)
    const controller = new AbortController()
    const waiting = ctx.web.whenProvidersRegistered({ signal: controller.signal })
    controller.abort()
    const error = await waiting.then(() => undefined, (error) => error)
    assert.ok(WebError.is(error))
    assert.equal(error.code, 'WEB_ABORTED')
    assert.match(error.message, /search provider "never-mounted" not registered yet/)
  })

  it('names no provider by default: a search or fetch of a seam whose row names none is refused, naming the key to set', async () => {
    const ctx = new Context()
    ctx.plugin(web, {})
    await settle(ctx)
    assert.equal(ctx.web.config.searchProvider, undefined)
    assert.equal(ctx.web.config.fetchProvider, undefined)
    ctx.web.registerSearchProvider(searchProvider('deepseek-official'))
    const error = await ctx.web.search({ query: 'q' }, call()).then(() => undefined, (error) => error)
    assert.ok(WebError.is(error))
    assert.equal(error.code, 'WEB_PROVIDER_NOT_REGISTERED')
    assert.match(error.message, /No search provider is configured: the web row names none, and the seam has no default\. Set `searchProvider` in the web row's config to a registered id\. Registered: deepseek-official\./)
    const fetchError = await ctx.web.fetch({ url: 'https://example.com/' }, call()).then(() => undefined, (error) => error)
    assert.match(fetchError?.message, /Set `fetchProvider` in the web row's config/)
  })

  it('names the id and what is registered when the configured provider is missing', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'deepseek-official', fetchProvider: 'http' })
    await settle(ctx)
    ctx.web.registerSearchProvider(searchProvider('openai-official'))
    const error = await ctx.web.search({ query: 'q' }, call()).then(() => undefined, (error) => error)
    assert.ok(WebError.is(error))
    assert.equal(error.code, 'WEB_PROVIDER_NOT_REGISTERED')
    assert.match(error.message, /"deepseek-official" is not registered/)
    assert.match(error.message, /openai-official/)
    assert.deepEqual(error.details.registered, ['openai-official'])
  })

  it('refuses a registered provider that says it is unavailable, without falling back', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'down', fetchProvider: 'http' })
    await settle(ctx)
    ctx.web.registerSearchProvider(searchProvider('up'))
    ctx.web.registerSearchProvider(searchProvider('down', false))
    await assert.rejects(ctx.web.search({ query: 'q' }, call()), (error: unknown) => WebError.is(error) && error.code === 'WEB_PROVIDER_UNAVAILABLE' && /"down"/.test(error.message))
    const error = await ctx.web.search({ query: 'q' }, call()).then(() => undefined, (error) => error)
    assert.match(error.message, /not available: it gave no reason \(check its config row\)\. Registered search providers: up, down\./)
    assert.equal(error.details.reason, undefined)
  })

  it('regression: "registered but not available" names the provider\'s own reason (unavailableReason) when it gives one', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'down', fetchProvider: 'http' })
    await settle(ctx)
    const reason = 'baseURL "not a url" is not a valid URL; set baseURL or DOWN_BASE_URL'
    ctx.web.registerSearchProvider(searchProvider('down', false, reason))
    const error = await ctx.web.search({ query: 'q' }, call()).then(() => undefined, (error) => error)
    assert.ok(WebError.is(error))
    assert.equal(error.code, 'WEB_PROVIDER_UNAVAILABLE')
    assert.equal(
      error.message,
      `The configured search provider "down" is registered but not available: ${reason}. Registered search providers: down.`,
    )
    assert.equal(error.details.reason, reason)
    assert.equal(error.details.providerId, 'down')
    // An available provider is never asked why it is not.
    const other = new Context()
    other.plugin(web, { searchProvider: 'up', fetchProvider: 'http' })
    await settle(other)
    let asked = false
    other.web.registerSearchProvider({ ...searchProvider('up'), unavailableReason: () => ((asked = true), 'never') })
    assert.equal((await other.web.search({ query: 'q' }, call())).providerId, 'up')
    assert.equal(asked, false)
  })

  it('routes fetches to the configured fetch provider', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'x', fetchProvider: 'http' })
    await settle(ctx)
    ctx.web.registerFetchProvider(fetchProvider('http'))
    await assert.rejects(ctx.web.fetch({ url: 'https://example.com/' }, call()), /fetch by http/)
  })
})

/** A fetch provider whose every page is read as `kind` (static or rendered), counting its calls; `fails` makes it throw. */
function pageProvider(id: string, readAs: 'static' | 'rendered', kind: 'ok' | 'needs_js', fails?: string): FetchProvider & { calls: number } {
  const provider = {
    id,
    calls: 0,
    available: () => true,
    fetch: async (request: { url: string }) => {
      provider.calls++
      if (fails) throw new WebError('WEB_FETCH_FAILED', fails)
      return {
        text: `${id} text`,
        warnings: [],
        outcome: { kind, readAs, ...(kind === 'needs_js' ? { evidence: 'app root #root empty' } : {}), ...(readAs === 'rendered' ? { renderedBy: id } : {}) },
        provenance: { requestedUrl: request.url, finalUrl: request.url, redirects: [], status: 200, bytesRead: 1, durationMs: 1, extractor: 'test', cacheHit: false, fetchedAt: new Date(0).toISOString() },
      } as any
    },
  }
  return provider
}

describe('rendering on the web row', () => {
  async function row(config: Record<string, unknown>, staticKind: 'ok' | 'needs_js', renderFails?: string) {
    const ctx = new Context()
    ctx.plugin(web, { fetchProvider: 'http', ...config })
    await settle(ctx)
    const http = pageProvider('http', 'static', staticKind)
    const browser = pageProvider('browser', 'rendered', 'ok', renderFails)
    ctx.web.registerFetchProvider(http)
    ctx.web.registerFetchProvider(browser)
    return { ctx, http, browser }
  }

  it('never (the default): a needs_js page is the static one, saying rendering is off on the row', async () => {
    const { ctx, browser } = await row({}, 'needs_js')
    const document = await ctx.web.fetch({ url: 'https://example.com/' }, call())
    assert.equal(document.outcome?.kind, 'needs_js')
    assert.match(document.outcome?.renderNote ?? '', /^not rendered; rendering is off on the web row \(render: never\), and render: auto/)
    assert.equal(browser.calls, 0)
  })

  it('auto: a page the static provider reads as needs_js is rendered in the same call, saying by whom and why', async () => {
    const { ctx, http, browser } = await row({ render: 'auto', renderProvider: 'browser' }, 'needs_js')
    const document = await ctx.web.fetch({ url: 'https://example.com/' }, call())
    assert.equal(document.text, 'browser text')
    assert.deepEqual([http.calls, browser.calls], [1, 1])
    assert.equal(document.outcome?.readAs, 'rendered')
    assert.equal(document.outcome?.renderedBy, 'browser')
    assert.match(document.outcome?.renderNote ?? '', /^rendered by browser because http read the page as needs_js \(app root #root empty\)/)
  })

  it('auto: an ok page is not rendered', async () => {
    const { ctx, browser } = await row({ render: 'auto', renderProvider: 'browser' }, 'ok')
    assert.equal((await ctx.web.fetch({ url: 'https://example.com/' }, call())).text, 'http text')
    assert.equal(browser.calls, 0)
  })

  it('auto: a render that fails leaves the static page typed needs_js, with the failure in its note', async () => {
    const { ctx } = await row({ render: 'auto', renderProvider: 'browser' }, 'needs_js', 'Chromium is not installed')
    const document = await ctx.web.fetch({ url: 'https://example.com/' }, call())
    assert.equal(document.outcome?.kind, 'needs_js')
    assert.equal(document.outcome?.readAs, 'static')
    assert.match(document.outcome?.renderNote ?? '', /^gave up rendering with browser: Chromium is not installed/)
  })

  it('always: every page is the render provider\'s', async () => {
    const { ctx, http, browser } = await row({ render: 'always', renderProvider: 'browser' }, 'ok')
    assert.equal((await ctx.web.fetch({ url: 'https://example.com/' }, call())).text, 'browser text')
    assert.deepEqual([http.calls, browser.calls], [0, 1])
  })

  it('a row that renders but names no renderProvider is refused naming the key; one naming an unregistered id is waited for', async () => {
    const { ctx } = await row({ render: 'auto' }, 'needs_js')
    await assert.rejects(ctx.web.fetch({ url: 'https://example.com/' }, call()), (error: unknown) => WebError.is(error) && error.code === 'WEB_PROVIDER_NOT_REGISTERED' && /names no renderProvider/.test(error.message))
    const waiting = await row({ render: 'auto', renderProvider: 'chrome' }, 'ok')
    const controller = new AbortController()
    const ready = waiting.ctx.web.whenProvidersRegistered({ signal: controller.signal })
    controller.abort()
    await assert.rejects(ready, (error: unknown) => WebError.is(error) && /render provider "chrome"/.test(error.message))
  })
})

describe('pages on a fetch (the seam)', () => {
  async function seamWith(answer: (request: web.FetchRequest) => Record<string, unknown>) {
    const ctx = new Context()
    ctx.plugin(web, { fetchProvider: 'http' })
    await settle(ctx)
    const provider = {
      id: 'http',
      calls: 0,
      available: () => true,
      fetch: async (request: web.FetchRequest) => {
        provider.calls++
        return { text: 'the page', metadata: {}, warnings: [], ...answer(request) } as any
      },
    }
    ctx.web.registerFetchProvider(provider)
    return { ctx, provider }
  }

  it('refuses a range written wrong before any provider is asked', async () => {
    const { ctx, provider } = await seamWith(() => ({}))
    for (const pages of ['0', '3-', '2-1', 'all', '1,2', 5]) {
      await assert.rejects(ctx.web.fetch({ url: 'https://a.test/', pages } as any, call()), (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && /pages/.test(error.message), String(pages))
    }
    assert.equal(provider.calls, 0)
  })

  it('says so when the document has no pages (an HTML page is read whole), and passes a paged answer as it is', async () => {
    const { ctx } = await seamWith((request) => (request.url.endsWith('.pdf') ? { metadata: { sourceFormat: 'pdf' }, pages: { pageCount: 9, first: 2, last: 3, requested: { first: 2, last: 3, start: 10, end: 90 } } } : {}))
    const html = await ctx.web.fetch({ url: 'https://a.test/', pages: '2-3' }, call())
    assert.deepEqual(html.warnings, ['pages "2-3" was asked for, but this document (read as html) has no pages, only PDFs do; it is read whole, by offset.'])
    const pdf = await ctx.web.fetch({ url: 'https://a.test/a.pdf', pages: '2-3' }, call())
    assert.deepEqual(pdf.warnings, [])
    assert.equal(pdf.pages?.requested?.first, 2)
  })

  it('refuses the answer of a provider that ignored the pages of a paged document', async () => {
    const { ctx } = await seamWith(() => ({ metadata: { sourceFormat: 'pdf' }, pages: { pageCount: 9, first: 1, last: 9 } }))
    await assert.rejects(ctx.web.fetch({ url: 'https://a.test/a.pdf', pages: '4' }, call()), (error: unknown) => WebError.is(error) && error.code === 'WEB_PROVIDER_BAD_RESPONSE' && /does not implement pages/.test(error.message))
  })
})
