import { type Context, Schema } from 'cordis'
import { type CredentialConfig, credentialConfig, type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { refuseUnknownKeys } from 'dsh-host'
import { createDeepSeekSearch } from './deepseek-search.js'

export const name = 'dsh-web-search-deepseek'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends CredentialConfig, RequestConfig {
  baseURL?: string
  model: string
  maxTokens: number
  maxUses: number
  apiVersion: string
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  ...credentialConfig('DEEPSEEK_API_KEY'),
  baseURL: Schema.string().description(
    'Base of the Anthropic-compatible endpoint (`/v1/messages` is appended, or `/messages` after a trailing /v1). ' +
      'Unset: DEEPSEEK_SEARCH_BASE_URL, else https://api.deepseek.com/anthropic.',
  ),
  model: Schema.string().default('deepseek-v4-flash').description('Model that runs the search turn.'),
  maxTokens: Schema.natural().min(1).default(4096).description('max_tokens of the search turn.'),
  maxUses: Schema.natural().min(1).default(3).description('max_uses of the web search tool: searches per request.'),
  apiVersion: Schema.string().default('2023-06-01').description('anthropic-version header.'),
  ...requestConfig({ retries: 'Retries after 429, 5xx and 529, within the deadline.' }),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createDeepSeekSearch(config, deps))
}

export * from './deepseek-search.js'
