import { type Context, Service } from 'cordis'
import { WebError } from './errors.js'
import type { LimitRule, StateStore } from 'dsh-host'
import { MemoryStateStore } from './memory-store.js'
import { checkLensAnswered, readPageLens } from './page-lens.js'
import { checkPagesAnswered, readPageRange } from './page-range.js'
import { fromSearchCache, SEARCH_CACHE_HIT_EVENT, searchCacheKey, toSearchCache } from './search-cache.js'
import { SharedState } from './shared-state.js'
import type { FetchedDocument, FetchProvider, FetchRequest, ProviderCall, RequestRecord, SearchProvider, SearchRequest, SearchResult } from './types.js'

export interface WebConfig {
  /** No default: a search without it is refused, naming the key. */
  searchProvider?: string
  /** No default: a fetch without it is refused, naming the key. */
  fetchProvider?: string
  /**
   * When pages are rendered by `renderProvider` (a fetch provider that runs
   * the page's scripts, e.g. `browser`): `never` (the default: every fetch is
   * `fetchProvider`'s), `auto` (a page `fetchProvider` read as `needs_js` is
   * rendered in the same call, and says so), `always` (every fetch is
   * `renderProvider`'s).
   */
  render: RenderMode
  /** No default: with `render` other than `never`, a fetch without it is refused, naming the key. */
  renderProvider?: string
  /** A state store answer slower than this counts as a failure. */
  stateTimeoutMs: number
  /** A state store that failed is skipped for this long. */
  stateRetryMs: number
  /** Bytes of the in-process store's cache. */
  memoryMaxBytes: number
  /** How long a search result is kept (0: searches are not cached). */
  searchCacheTtlMs: number
  /** Limits per search provider id (one API key per provider in a deployment). */
  searchLimits: Record<string, LimitRule>
}

type Kind = 'search' | 'fetch'

export type RenderMode = 'never' | 'auto' | 'always'

/** How long a search may hold a slot of its provider when it has no deadline (a process that died frees it then). */
const SEARCH_LEASE_MS = 120_000

/**
 * The seam: registries of search and fetch providers, each selected by the
 * explicit id in this row's config at every call; the shared state
 * (`state`) every provider caches and limits through, on the composition's
 * `ctx.stateStore` when a row provides one and in this process when none
 * does; the search cache and the limits per search provider, at dispatch.
 */
export class WebService extends Service<WebConfig> {
  private readonly searchProviders = new Map<string, SearchProvider>()
  private readonly fetchProviders = new Map<string, FetchProvider>()
  /** Callers of whenProvidersRegistered still waiting, each told at every registration. */
  private readonly registrationWaiters = new Set<() => void>()
  /** The cache and limits, through `ctx.stateStore` (or this process's store). */
  readonly state: SharedState

  constructor(ctx: Context, config: WebConfig) {
    super(ctx, 'web', true)
    this.config = config
    const memory = new MemoryStateStore(config.memoryMaxBytes)
    this.state = new SharedState({
      // Looked up at every call: the row that provides it may start after this one, or stop.
      selected: () => (ctx.get('stateStore') as StateStore | undefined) ?? memory,
      memory,
      timeoutMs: config.stateTimeoutMs,
      retryAfterFailureMs: config.stateRetryMs,
    })
    ctx.effect(() => () => memory.clear())
  }

  /** Registers a search provider for as long as the calling plugin lives. */
  registerSearchProvider(provider: SearchProvider): () => void {
    return this.register('search', this.searchProviders, provider)
  }

  /** Registers a fetch provider for as long as the calling plugin lives. */
  registerFetchProvider(provider: FetchProvider): () => void {
    return this.register('fetch', this.fetchProviders, provider)
  }

  /**
   * The readiness signal: resolves once every provider this row names
   * (`searchProvider`, `fetchProvider`, and `renderProvider` when it renders;
   * a kind it names none of is not waited for) is registered, at once when they already are. Providers
   * register when their own plugins start, after the seam; a host or plugin
   * that calls the tools at its own start awaits this first. Rejects with
   * WEB_ABORTED when `signal` aborts (give it a deadline: a provider whose
   * row failed never registers), naming the ids still missing.
   */
  whenProvidersRegistered(options: { signal?: AbortSignal } = {}): Promise<void> {
    const missing = () => [
      ...(['search', 'fetch'] as const).flatMap((kind) => {
        const id = this.config[`${kind}Provider`]
        const registry = kind === 'search' ? this.searchProviders : this.fetchProviders
        return id && !registry.has(id) ? [`${kind} provider "${id}"`] : []
      }),
      ...(this.config.render !== 'never' && this.config.renderProvider && !this.fetchProviders.has(this.config.renderProvider) ? [`render provider "${this.config.renderProvider}"`] : []),
    ]
    if (!missing().length) return Promise.resolve()
    const { signal } = options
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (missing().length) return
        done()
        resolve()
      }
      const onAbort = () => {
        done()
        reject(new WebError('WEB_ABORTED', `Stopped waiting for the web row's providers: ${missing().join(' and ')} not registered yet (is its row mounted and started?).`, { details: { missing: missing() } }))
      }
      const done = () => {
        this.registrationWaiters.delete(check)
        signal?.removeEventListener('abort', onAbort)
      }
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      this.registrationWaiters.add(check)
    })
  }

  listProviders(): { search: string[]; fetch: string[] } {
    return { search: [...this.searchProviders.keys()], fetch: [...this.fetchProviders.keys()] }
  }

  /** The configured search provider, or a typed error naming what is registered. */
  searchProvider(): SearchProvider {
    return this.select('search', this.searchProviders, this.config.searchProvider)
  }

  /** The configured fetch provider, or a typed error naming what is registered. */
  fetchProvider(): FetchProvider {
    return this.select('fetch', this.fetchProviders, this.config.fetchProvider)
  }

  /**
   * Searches with the configured provider; selection errors reject like any
   * other. Each call is its own provider request unless the operator turned
   * the search cache on (`searchCacheTtlMs`): then a result kept within it
   * answers without the provider, says so (`fromCache`), and the calling
   * session records which logged requests it came from. Otherwise the
   * provider's limit (`searchLimits`) is passed first. What the state store
   * could not do is said in the result's warnings.
   */
  async search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const provider = this.searchProvider()
    const notes: string[] = []
    const ttlMs = this.config.searchCacheTtlMs
    const key = ttlMs > 0 ? searchCacheKey(provider.id, request) : undefined
    if (key) {
      const stored = await this.state.read(key, notes)
      const hit = stored === undefined ? undefined : fromSearchCache(stored, provider.id)
      if (hit) {
        await recordCacheHit(call, hit)
        return withNotes(hit, notes)
      }
    }
    const rule = this.config.searchLimits[provider.id]
    const release = rule
      ? await this.state.acquire(
          {
            bucket: `search:${provider.id}`,
            rule,
            subject: `the search provider ${provider.id}`,
            what: `The search ${JSON.stringify(request.query.slice(0, 80))}`,
            setting: `searchLimits.${provider.id} in the web row`,
            leaseMs: call.deadline ? Math.max(1000, call.deadline - Date.now()) : SEARCH_LEASE_MS,
          },
          call,
          notes,
        )
      : undefined
    const requests: RequestRecord[] = []
    const collecting: ProviderCall = key
      ? {
          ...call,
          onRequestLogged: (record) => {
            requests.push(record)
            call.onRequestLogged?.(record)
          },
        }
      : call
    let result: SearchResult
    try {
      result = await provider.search(request, collecting)
    } finally {
      await release?.()
    }
    if (key) await this.state.write([key], toSearchCache(result, new Date().toISOString(), requests), ttlMs, notes)
    return withNotes(result, notes)
  }

  /** Fetches with the configured provider; selection errors reject like any other. */
  /** The configured render provider (a fetch provider by id), or a typed error naming the key and what is registered. */
  renderProvider(): FetchProvider {
    if (!this.config.renderProvider) {
      throw new WebError('WEB_PROVIDER_NOT_REGISTERED', `The web row renders pages (render: ${this.config.render}) but names no renderProvider, and the seam has no default. Set \`renderProvider\` to a registered fetch provider that renders, e.g. browser (the dsh-web-fetch-browser row). Registered: ${[...this.fetchProviders.keys()].join(', ') || 'none'}.`, {
        details: { registered: [...this.fetchProviders.keys()] },
      })
    }
    return this.select('fetch', this.fetchProviders, this.config.renderProvider)
  }

  /**
   * Fetches with the configured provider, and renders as the row's `render`
   * says: `never`, every page is `fetchProvider`'s (a page it read as
   * `needs_js` says rendering is off); `always`, every page is
   * `renderProvider`'s; `auto`, a page `fetchProvider` read as `needs_js` is
   * fetched again by `renderProvider` in the same call, and its outcome says
   * why. A render that fails leaves the static page, typed `needs_js`, with
   * the failure in its note: never an untyped fallback.
   */
  async fetch(request: FetchRequest, call: ProviderCall): Promise<FetchedDocument> {
    // find, query and pages are refused here, before any provider is asked, and their answer is required of it.
    const lens = readPageLens(request)
    const range = readPageRange(request.pages)
    const answered = (document: FetchedDocument, providerId: string) => checkPagesAnswered(range, checkLensAnswered(lens, document, providerId), providerId)
    if (this.config.render === 'always') {
      const renderer = this.renderProvider()
      return answered(await renderer.fetch(request, call), renderer.id)
    }
    const provider = this.fetchProvider()
    const renderer = this.config.render === 'auto' ? this.renderProvider() : undefined
    const document = answered(await provider.fetch(request, call), provider.id)
    if (document.outcome?.kind !== 'needs_js' || document.outcome.readAs !== 'static') return document
    if (!renderer) {
      return { ...document, outcome: { ...document.outcome, renderNote: `${document.outcome.renderNote ?? 'not rendered'}; rendering is off on the web row (render: never), and render: auto with a renderProvider such as browser reads such pages` } }
    }
    const why = `${provider.id} read the page as needs_js${document.outcome.evidence ? ` (${document.outcome.evidence})` : ''}`
    try {
      const rendered = answered(await renderer.fetch(request, call), renderer.id)
      const outcome = rendered.outcome ?? { kind: 'ok' as const, readAs: 'rendered' as const }
      return { ...rendered, outcome: { ...outcome, renderedBy: outcome.renderedBy ?? renderer.id, renderNote: `rendered by ${renderer.id} because ${why}${outcome.renderNote ? `; ${outcome.renderNote}` : ''}` } }
    } catch (error) {
      if (call.signal?.aborted) throw error
      const reason = error instanceof Error ? error.message : String(error)
      return { ...document, outcome: { ...document.outcome, renderNote: `gave up rendering with ${renderer.id}: ${reason}` } }
    }
  }

  private register<P extends { id: string }>(kind: Kind, registry: Map<string, P>, provider: P): () => void {
    if (!provider || typeof provider.id !== 'string' || !provider.id) {
      throw new WebError('INVALID_ARGUMENT', `A ${label(kind)} needs a non-empty string id.`)
    }
    // Checked before the effect so that the duplicate's plugin fails, not the holder's.
    if (registry.has(provider.id)) {
      throw new WebError(
        'INVALID_ARGUMENT',
        `A ${label(kind)} with id "${provider.id}" is already registered; ids must be unique.`,
        { details: { providerId: provider.id } },
      )
    }
    return this.ctx.effect(() => {
      registry.set(provider.id, provider)
      for (const check of [...this.registrationWaiters]) check()
      return () => {
        if (registry.get(provider.id) === provider) registry.delete(provider.id)
      }
    })
  }

  private select<P extends { id: string; available(): boolean; unavailableReason?(): string | undefined }>(kind: Kind, registry: Map<string, P>, id: string | undefined): P {
    const registered = [...registry.keys()]
    const listed = registered.length ? registered.join(', ') : 'none'
    if (!id) {
      throw new WebError('WEB_PROVIDER_NOT_REGISTERED', `No ${kind} provider is configured: the web row names none, and the seam has no default. Set \`${kind}Provider\` in the web row's config to a registered id. Registered: ${listed}.`, {
        details: { registered },
      })
    }
    const provider = registry.get(id)
    if (!provider) {
      throw new WebError(
        'WEB_PROVIDER_NOT_REGISTERED',
        `The configured ${kind} provider "${id}" is not registered. Registered ${kind} providers: ${listed}. ` +
          `Mount its plugin or change \`${kind}Provider\` in the web row.`,
        { details: { providerId: id, registered } },
      )
    }
    if (!provider.available()) {
      const reason = provider.unavailableReason?.()?.trim().replace(/\.$/, '')
      throw new WebError(
        'WEB_PROVIDER_UNAVAILABLE',
        `The configured ${kind} provider "${id}" is registered but not available: ${reason || 'it gave no reason (check its config row)'}. ` +
          `Registered ${kind} providers: ${listed}.`,
        { details: { providerId: id, registered, ...(reason ? { reason } : {}) } },
      )
    }
    return provider
  }
}

/** The log-only event of a cached answer in the calling session: what answered, when, and the requests behind it. */
async function recordCacheHit(call: ProviderCall, hit: SearchResult): Promise<void> {
  if (!call.session || !hit.fromCache) return
  const { searchedAt, providerId, requests } = hit.fromCache
  await call.session.append(
    SEARCH_CACHE_HIT_EVENT,
    {
      providerId,
      query: hit.query,
      searchedAt,
      requests: requests.map((record) => ({ ...record })),
      ...(call.callId ? { callId: call.callId } : {}),
    },
    { visibility: 'log' },
  )
}

function withNotes(result: SearchResult, notes: string[]): SearchResult {
  return notes.length ? { ...result, warnings: [...(result.warnings ?? []), ...notes] } : result
}

const label = (kind: Kind) => `${kind} provider`
