import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { type CredentialConfig, credentialConfig, type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { createPerplexitySearch } from './perplexity-search.js'
import type { PerplexitySearchMode } from './perplexity-search-api.js'

export const name = 'dsh-web-search-perplexity'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends CredentialConfig, RequestConfig {
  baseURL?: string
  maxResults: number
  searchMode?: PerplexitySearchMode
  maxTokensPerPage?: number
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  ...credentialConfig('PERPLEXITY_API_KEY'),
  baseURL: Schema.string().description('Base of the API (`/search` is appended). Unset: PERPLEXITY_SEARCH_BASE_URL, else https://api.perplexity.ai.'),
  maxResults: Schema.natural().min(1).max(20).default(10).description('max_results: results per search, 1..20.'),
  searchMode: Schema.union(['web', 'academic', 'sec'] as const).description("search_mode: web, academic (scholarly articles) or sec (SEC filings). Unset: Perplexity's default (web)."),
  maxTokensPerPage: Schema.natural().min(1).max(16_384).description("max_tokens_per_page: how much of each page Perplexity reads for the snippet. Unset: Perplexity's default."),
  ...requestConfig({ retries: 'Retries after 429 and 5xx, within the deadline.' }),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createPerplexitySearch(config, deps))
}

export * from './perplexity-search.js'
