import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { type CredentialConfig, credentialConfig, type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { createBraveSearch } from './brave-search.js'
import type { BraveSafeSearch } from './to-brave-request.js'

export const name = 'dsh-web-search-brave'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends CredentialConfig, RequestConfig {
  baseURL?: string
  maxResults: number
  searchLang?: string
  uiLang?: string
  safesearch?: BraveSafeSearch
  freshness?: string
  extraSnippets?: boolean
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  ...credentialConfig('BRAVE_API_KEY'),
  baseURL: Schema.string().description(
    'Base of the API (`/web/search` is appended, or `/res/v1/web/search` when the base does not end in /res/v1). ' +
      'Unset: BRAVE_SEARCH_BASE_URL, else https://api.search.brave.com/res/v1.',
  ),
  maxResults: Schema.natural()
    .min(1)
    .max(200)
    .default(20)
    .description('Web results per search, at most: up to 20 in one request; more are fetched as further pages of 20 (offset 1..9) while Brave says more are available.'),
  searchLang: Schema.string().description('search_lang: the language of the results, e.g. en, de, zh-hans. Unset: Brave\'s default (en).'),
  uiLang: Schema.string().description('ui_lang: the language of the response, e.g. en-US, de-DE. Unset: Brave\'s default (en-US).'),
  safesearch: Schema.union(['off', 'moderate', 'strict'] as const).description('safesearch. Unset: Brave\'s default (moderate).'),
  freshness: Schema.string()
    .pattern(/^(pd|pw|pm|py|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$/)
    .description('freshness: pd (24 h), pw (7 days), pm (31 days), py (365 days) or YYYY-MM-DDtoYYYY-MM-DD. A search\'s own recency replaces it for that search. Unset: no limit.'),
  extraSnippets: Schema.boolean().description('Send extra_snippets=true (up to 5 more excerpts per result; not in every plan). Unset: not sent.'),
  ...requestConfig({ timeout: 'Deadline of one search, every page and retry included.', retries: 'Retries of one page after 429 and 5xx, within the deadline.' }),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createBraveSearch(config, deps))
}

export * from './brave-search.js'
