import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { createSearxngSearch } from './searxng-search.js'
import type { SearxngAuthScheme } from './searxng-auth.js'
import type { SearxngSafeSearch, SearxngTimeRange } from './searxng-search-api.js'

export const name = 'dsh-web-search-searxng'

/** `web` is required; `credentials` is read per call when mounted (and only when the row names a credential), never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends RequestConfig {
  baseURL?: string
  authEnv?: string
  authValue?: string
  authScheme: SearxngAuthScheme
  authHeader?: string
  language?: string
  safesearch?: SearxngSafeSearch
  timeRange?: SearxngTimeRange
  categories: string[]
  engines: string[]
  maxResults: number
  maxPages: number
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  baseURL: Schema.string().description(
    "The SearXNG instance's root, e.g. https://search.internal.example/ (`/search` is appended). Unset: SEARXNG_BASE_URL. " +
      'There is no default: the instance is yours to name, and it must have `json` in `search.formats`.',
  ),
  authEnv: Schema.string().description(
    'Name of a credential for an instance behind an authenticating proxy, resolved at every search (the credentials service when mounted, else this environment variable). Unset: nothing is sent.',
  ),
  authValue: Schema.string().role('secret').description('A literal credential, used only when the named one is not found. Prefer `dsh credentials set`.'),
  authScheme: Schema.union(['basic', 'bearer', 'header'] as const)
    .default('basic')
    .description('basic: the credential is user:password, sent as HTTP Basic. bearer: Authorization: Bearer <credential>. header: the credential as the value of authHeader.'),
  authHeader: Schema.string().description('The header that carries the credential, for authScheme header (e.g. X-Api-Key).'),
  language: Schema.string().description('`language` of every search, e.g. en, de-CH or auto. Unset: the instance\'s default.'),
  safesearch: Schema.union([0, 1, 2] as const).description('`safesearch`: 0 none, 1 moderate, 2 strict. Unset: the instance\'s default.'),
  timeRange: Schema.union(['day', 'week', 'month', 'year'] as const).description('`time_range`: only results from the last day, week, month or year (engines that support it). A search\'s own recency replaces it for that search.'),
  categories: Schema.array(String).default([]).description('`categories`, e.g. [general, news]. Empty: the instance\'s default.'),
  engines: Schema.array(String).default([]).description('`engines` by name, e.g. [duckduckgo, wikipedia]. Empty: the instance\'s default.'),
  maxResults: Schema.natural().min(1).max(100).default(10).description('Sources listed per search; further pages are requested until there are this many.'),
  maxPages: Schema.natural().min(1).max(5).default(2).description('Pages requested at most per search (each is a full metasearch on the instance).'),
  ...requestConfig({ timeoutMs: 30_000, timeout: 'Deadline of one search, every page and retry included.', retries: 'Retries per page after 5xx, or a 429 that says when to retry, within the deadline.' }),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createSearxngSearch(config, deps))
}

export * from './searxng-search.js'
