import { type Context, Schema } from 'cordis'
import { type ModelSearchProxy, ProxyConfig } from 'dsh-provider-kit'
import { refuseUnknownKeys } from 'dsh-host'
import { resolveCredential } from 'dsh-web'
import { createGeminiSearch } from './gemini-search.js'

export const name = 'dsh-web-search-gemini'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config {
  apiKeyEnv: string
  apiKey?: string
  baseURL?: string
  model: string
  maxOutputTokens: number
  timeoutMs: number
  maxRetries: number
  proxy?: ModelSearchProxy
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  apiKeyEnv: Schema.string()
    .default('GEMINI_API_KEY')
    .description('Name of the credential, resolved at every search: the credentials service when mounted, else this environment variable.'),
  apiKey: Schema.string().role('secret').description('A literal key, used only when the named credential is not found. Prefer `dsh credentials set`.'),
  baseURL: Schema.string().description(
    'Base of the Gemini API (`/v1beta/models/{model}:generateContent` is appended, or `/models/...` after a trailing /v1beta). ' +
      'Unset: GEMINI_SEARCH_BASE_URL, else https://generativelanguage.googleapis.com.',
  ),
  model: Schema.string().default('gemini-2.5-flash').description('Model that runs the grounded search; it goes in the path, so only letters, digits, ".", "-" and "_".'),
  maxOutputTokens: Schema.natural().min(1).default(4096).description('generationConfig.maxOutputTokens of the search turn.'),
  timeoutMs: Schema.natural().role('ms').min(1).default(60_000).description('Deadline of one search, retries included.'),
  maxRetries: Schema.natural().max(2).default(2).description('Retries after 429 (not a daily quota) and 5xx, within the deadline.'),
  proxy: ProxyConfig,
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  const provider = createGeminiSearch(config, {
    resolveCredential: (request) => resolveCredential(ctx, request),
  })
  ctx.web.registerSearchProvider(provider)
  ctx.effect(() => () => void provider.close())
}

export * from './gemini-search.js'
export * from './gemini-generate-content-api.js'
export { toGeminiRequest, geminiGenerateContentEndpoint, searchInstruction } from './to-gemini-request.js'
export { fromGeminiResponse } from './from-gemini-response.js'
export { fromGeminiError } from './gemini-error.js'
