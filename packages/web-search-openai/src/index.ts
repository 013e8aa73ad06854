import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { type CredentialConfig, credentialConfig, type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { createOpenAISearch } from './openai-search.js'
import type { OpenAISearchContextSize } from './openai-responses-api.js'

export const name = 'dsh-web-search-openai'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends CredentialConfig, RequestConfig {
  baseURL?: string
  model: string
  searchContextSize?: OpenAISearchContextSize
  organization?: string
  project?: string
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  ...credentialConfig('OPENAI_API_KEY'),
  baseURL: Schema.string().description(
    'Base of the Responses endpoint (`/v1/responses` is appended, or `/responses` after a trailing /v1). Unset: OPENAI_SEARCH_BASE_URL, else https://api.openai.com.',
  ),
  model: Schema.string().default('gpt-4.1-mini').description('Model that runs the search.'),
  searchContextSize: Schema.union(['low', 'medium', 'high']).description('search_context_size of the web_search tool; unset leaves the API default (medium).'),
  organization: Schema.string().description('Sent as OpenAI-Organization when set.'),
  project: Schema.string().description('Sent as OpenAI-Project when set.'),
  ...requestConfig({ retries: 'Retries after 429 (not insufficient_quota) and 5xx, within the deadline.' }),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createOpenAISearch(config, deps))
}

export * from './openai-search.js'
