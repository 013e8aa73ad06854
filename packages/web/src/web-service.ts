import { type Context, Service } from 'cordis'
import { WebError } from './errors.js'
import type { FetchedDocument, FetchProvider, FetchRequest, ProviderCall, SearchProvider, SearchRequest, SearchResult } from './types.js'

export interface WebConfig {
  searchProvider: string
  fetchProvider: string
}

type Kind = 'search' | 'fetch'

/**
 * The seam: registries of search and fetch providers, and selection by the
 * explicit id in this row's config at every call.
 */
export class WebService extends Service<WebConfig> {
  private readonly searchProviders = new Map<string, SearchProvider>()
  private readonly fetchProviders = new Map<string, FetchProvider>()

  constructor(ctx: Context, config: WebConfig) {
    super(ctx, 'web', true)
    this.config = config
  }

  /** Registers a search provider for as long as the calling plugin lives. */
  registerSearchProvider(provider: SearchProvider): () => void {
    return this.register('search', this.searchProviders, provider)
  }

  /** Registers a fetch provider for as long as the calling plugin lives. */
  registerFetchProvider(provider: FetchProvider): () => void {
    return this.register('fetch', this.fetchProviders, provider)
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

  /** Searches with the configured provider; selection errors reject like any other. */
  async search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    return this.searchProvider().search(request, call)
  }

  /** Fetches with the configured provider; selection errors reject like any other. */
  async fetch(request: FetchRequest, call: ProviderCall): Promise<FetchedDocument> {
    return this.fetchProvider().fetch(request, call)
  }

  private register<P extends { id: string }>(kind: Kind, registry: Map<string, P>, provider: P): () => void {
    if (!provider || typeof provider.id !== 'string' || !provider.id) {
      throw new WebError('INVALID_ARGUMENT', `A ${kind} provider needs a non-empty string id.`)
    }
    // Checked before the effect so that the duplicate's plugin fails, not the holder's.
    if (registry.has(provider.id)) {
      throw new WebError(
        'INVALID_ARGUMENT',
        `A ${kind} provider with id "${provider.id}" is already registered; ids must be unique.`,
        { details: { providerId: provider.id } },
      )
    }
    return this.ctx.effect(() => {
      registry.set(provider.id, provider)
      return () => {
        if (registry.get(provider.id) === provider) registry.delete(provider.id)
      }
    })
  }

  private select<P extends { id: string; available(): boolean; unavailableReason?(): string | undefined }>(kind: Kind, registry: Map<string, P>, id: string): P {
    const registered = [...registry.keys()]
    const listed = registered.length ? registered.join(', ') : 'none'
    if (!id) {
      throw new WebError('WEB_PROVIDER_NOT_REGISTERED', `No ${kind} provider is configured: set \`${kind}Provider\` in the web row. Registered: ${listed}.`, {
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
