import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { type WebConfig, WebService } from './web-service.js'

export const name = 'dsh-web'

/** The shared state store is optional: without one the cache and limits are this process's (see WebService). */
export const inject = { stateStore: { required: false } }

export type Config = WebConfig

/** A limit: requests per interval, concurrent calls, or both (0: none). */
export const LimitRuleSchema = Schema.object({
  requests: Schema.natural().default(0).description('Requests per interval at most (0: no limit).'),
  intervalSeconds: Schema.natural().min(1).default(1).description('The interval of `requests`, in whole seconds.'),
  concurrency: Schema.natural().default(0).description('Calls running at once at most (0: no limit).'),
})

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  // No default: a composition names its providers (the seam never picks one for it); a call without one is refused naming this key.
  searchProvider: Schema.string().description('Id of the search provider every search goes to, e.g. deepseek-official (required for web_search; no default).'),
  fetchProvider: Schema.string().description('Id of the fetch provider every fetch goes to, e.g. http (required for web_fetch; no default).'),
  render: Schema.union(['never', 'auto', 'always']).default('never').description('When pages are rendered by renderProvider (a browser): never (every fetch is fetchProvider\'s; a page it reads as a script shell says rendering is off), auto (a page fetchProvider reads as needs_js is rendered in the same call, and says so), always (every fetch is renderProvider\'s).'),
  renderProvider: Schema.string().description('Id of the fetch provider that renders pages, e.g. browser (the dsh-web-fetch-browser row); required when render is auto or always; no default.'),
  stateTimeoutMs: Schema.natural().role('ms').min(1).default(250).description('An answer of the shared state store (ctx.stateStore, e.g. the dsh-state-redis row) slower than this counts as a failure: the call goes on without the cache, and counts its limits in this process, and says so.'),
  stateRetryMs: Schema.natural().role('ms').min(1).default(2000).description('After a failure the state store is skipped for this long before it is asked again.'),
  memoryMaxBytes: Schema.natural().default(50 * 1024 * 1024).description('Memory for the in-process store\'s cache, used when no row provides a shared state store (fetched documents and search results; 0 keeps nothing).'),
  searchCacheTtlMs: Schema.natural().role('ms').default(0).description('Off by default: every web_search is its own provider request. Above 0, how long a search result (by provider, query and filters) is kept and answers the same search without the provider; a hit says so in the result and names the original request in the session log.'),
  searchLimits: Schema.dict(LimitRuleSchema).default({}).description('Limits per search provider id, e.g. { brave: { requests: 1, intervalSeconds: 1 } }: one API key per provider, across every process on the state store.'),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  ctx.plugin(WebService, config)
}

declare module 'cordis' {
  interface Context {
    web: WebService
  }
}

export { WebService }
export * from './errors.js'
export * from './types.js'
export * from './credential.js'
export { MemoryStateStore } from './memory-store.js'
export { type LimitRequest, type Release, SharedState, type SharedStateOptions, type StateCall, type StateStatus, stateKey } from './shared-state.js'
export { routeFor } from './route.js'
export { writeWebArtifact } from './artifact.js'
export { SEARCH_CACHE_HIT_EVENT } from './search-cache.js'
export { FIND_MAX_CHARS, type PageLens, QUERY_MAX_CHARS, readPageLens } from './page-lens.js'
export { type PageRange, readPageRange } from './page-range.js'
export { EXTENSIONS, EXTRACTS, FORMATS, checkEnum, positive } from './fetch-arguments.js'
