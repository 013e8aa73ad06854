import { type Context, Schema } from 'cordis'
import { type CredentialConfig, credentialConfig, type RequestConfig, requestConfig, mountSearchProvider } from 'dsh-provider-kit'
import { refuseUnknownKeys } from 'dsh-host'
import { createGeminiSearch } from './gemini-search.js'

export const name = 'dsh-web-search-gemini'

/** `web` is required; `credentials` is read per call when mounted, never required. */
export const inject = { web: { required: true }, credentials: { required: false } }

export interface Config extends CredentialConfig, RequestConfig {
  baseURL?: string
  model: string
  maxOutputTokens: number
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  ...credentialConfig('GEMINI_API_KEY'),
  baseURL: Schema.string().description(
    'Base of the Gemini API (`/v1beta/models/{model}:generateContent` is appended, or `/models/...` after a trailing /v1beta). ' +
      'Unset: GEMINI_SEARCH_BASE_URL, else https://generativelanguage.googleapis.com.',
  ),
  model: Schema.string().default('gemini-2.5-flash').description('Model that runs the grounded search; it goes in the path, so only letters, digits, ".", "-" and "_".'),
  maxOutputTokens: Schema.natural().min(1).default(4096).description('generationConfig.maxOutputTokens of the search turn.'),
  ...requestConfig({ retries: 'Retries after 429 (not a daily quota) and 5xx, within the deadline.' }),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  mountSearchProvider(ctx, (deps) => createGeminiSearch(config, deps))
}

export * from './gemini-search.js'
