import { type Context, Schema } from 'cordis'
import { type ModelSearchProxy, ProxyConfig } from 'dsh-provider-kit'
import { refuseUnknownKeys } from 'dsh-host'
import { resolveCredential } from 'dsh-web'
import { createDeepSeekSearch } from './deepseek-search.js'

export const name = 'dsh-web-search-deepseek'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config {
  apiKeyEnv: string
  apiKey?: string
  baseURL?: string
  model: string
  maxTokens: number
  maxUses: number
  apiVersion: string
  timeoutMs: number
  maxRetries: number
  proxy?: ModelSearchProxy
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  apiKeyEnv: Schema.string()
    .default('DEEPSEEK_API_KEY')
    .description('Name of the credential, resolved at every search: the credentials service when mounted, else this environment variable.'),
  apiKey: Schema.string().role('secret').description('A literal key, used only when the named credential is not found. Prefer `dsh credentials set`.'),
  baseURL: Schema.string().description(
    'Base of the Anthropic-compatible endpoint (`/v1/messages` is appended, or `/messages` after a trailing /v1). ' +
      'Unset: DEEPSEEK_SEARCH_BASE_URL, else https://api.deepseek.com/anthropic.',
  ),
  model: Schema.string().default('deepseek-v4-flash').description('Model that runs the search turn.'),
  maxTokens: Schema.natural().min(1).default(4096).description('max_tokens of the search turn.'),
  maxUses: Schema.natural().min(1).default(3).description('max_uses of the web search tool: searches per request.'),
  apiVersion: Schema.string().default('2023-06-01').description('anthropic-version header.'),
  timeoutMs: Schema.natural().role('ms').min(1).default(60_000).description('Deadline of one search, retries included.'),
  maxRetries: Schema.natural().max(2).default(2).description('Retries after 429, 5xx and 529, within the deadline.'),
  proxy: ProxyConfig,
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  const provider = createDeepSeekSearch(config, {
    resolveCredential: (request) => resolveCredential(ctx, request),
  })
  ctx.web.registerSearchProvider(provider)
  ctx.effect(() => () => void provider.close())
}

export * from './deepseek-search.js'
