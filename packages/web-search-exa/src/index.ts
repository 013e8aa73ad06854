import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { type CredentialConfig, credentialConfig, type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { createExaSearch } from './exa-search.js'
import type { ExaSearchType, ExaSnippetSource } from './exa-search-api.js'

export const name = 'dsh-web-search-exa'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends CredentialConfig, RequestConfig {
  baseURL?: string
  maxResults: number
  type?: ExaSearchType
  snippets: ExaSnippetSource
  snippetMaxCharacters: number
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  ...credentialConfig('EXA_API_KEY'),
  baseURL: Schema.string().description('Base of the API (`/search` is appended). Unset: EXA_SEARCH_BASE_URL, else https://api.exa.ai.'),
  maxResults: Schema.natural().min(1).max(100).default(10).description('numResults: results per search, 1..100.'),
  type: Schema.union(['auto', 'neural', 'fast', 'instant', 'keyword'] as const).description("type of search. Unset: Exa's default (auto)."),
  snippets: Schema.union(['highlights', 'text'] as const)
    .default('highlights')
    .description('What each source\'s snippet is: `highlights` (the excerpts most relevant to the query; the first is the snippet, the rest extra snippets) or `text` (the page\'s text from its start).'),
  snippetMaxCharacters: Schema.natural().min(100).max(10_000).default(1_000).description('maxCharacters of the highlights or text of each result.'),
  ...requestConfig({ retries: 'Retries after 429 and 5xx, within the deadline.' }),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createExaSearch(config, deps))
}

export * from './exa-search.js'
