import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { type CredentialConfig, credentialConfig, type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { createTavilySearch } from './tavily-search.js'
import type { TavilyIncludeAnswer, TavilySearchDepth, TavilyTopic } from './tavily-search-api.js'

export const name = 'dsh-web-search-tavily'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends CredentialConfig, RequestConfig {
  baseURL?: string
  maxResults: number
  searchDepth?: TavilySearchDepth
  topic?: TavilyTopic
  includeAnswer?: TavilyIncludeAnswer
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  ...credentialConfig('TAVILY_API_KEY'),
  baseURL: Schema.string().description('Base of the API (`/search` is appended). Unset: TAVILY_SEARCH_BASE_URL, else https://api.tavily.com.'),
  maxResults: Schema.natural().min(1).max(20).default(10).description('max_results: results per search, 1..20.'),
  searchDepth: Schema.union(['basic', 'advanced', 'fast', 'ultra-fast'] as const).description("search_depth (advanced costs 2 credits). Unset: Tavily's default (basic)."),
  topic: Schema.union(['general', 'news', 'finance'] as const).description("topic; news results carry a published date. Unset: Tavily's default (general)."),
  includeAnswer: Schema.union(['basic', 'advanced'] as const).description("include_answer: Tavily's LLM-written answer beside the results, shown as model-written. Unset: not asked for."),
  ...requestConfig({ retries: 'Retries after 429 and 5xx, within the deadline.' }),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createTavilySearch(config, deps))
}

export * from './tavily-search.js'
