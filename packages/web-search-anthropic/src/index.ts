import { type Context, Schema } from 'cordis'
import { type CredentialConfig, credentialConfig, type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { refuseUnknownKeys } from 'dsh-host'
import { ANTHROPIC_WEB_SEARCH_TOOLS, type AnthropicWebSearchTool, createAnthropicSearch } from './anthropic-search.js'

export const name = 'dsh-web-search-anthropic'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends CredentialConfig, RequestConfig {
  baseURL?: string
  model: string
  maxTokens: number
  maxUses: number
  toolVersion: AnthropicWebSearchTool
  apiVersion: string
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  ...credentialConfig('ANTHROPIC_API_KEY'),
  baseURL: Schema.string().description(
    'Base of the Messages endpoint (`/v1/messages` is appended, or `/messages` after a trailing /v1). ' +
      'Unset: ANTHROPIC_SEARCH_BASE_URL, else https://api.anthropic.com.',
  ),
  model: Schema.string().default('claude-haiku-4-5').description('Model that runs the search turn; it must support the chosen web search tool version.'),
  maxTokens: Schema.natural().min(1).default(4096).description('max_tokens of the search turn.'),
  maxUses: Schema.natural().min(1).default(3).description('max_uses of the web search tool: searches per request.'),
  toolVersion: Schema.union(ANTHROPIC_WEB_SEARCH_TOOLS.map((version) => Schema.const(version)))
    .default('web_search_20250305')
    .description('Type of the web search tool: web_search_20250305 (every model with the tool), web_search_20260209 (dynamic filtering, newer models), web_search_20260318.'),
  apiVersion: Schema.string().default('2023-06-01').description('anthropic-version header.'),
  ...requestConfig({ retries: 'Retries after 429, 5xx and 529, within the deadline.' }),
}) as Schema<Partial<Config>, Config>

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createAnthropicSearch(config, deps))
}

export * from './anthropic-search.js'
