/**
 * What `dsh doctor` knows of the shipped providers: which row config names
 * their credential, which variable and default give their base URL. The
 * harness depends on no provider package, so these are restated here;
 * tests/doctor.spec.ts checks them against each package's exports.
 */
export interface KnownProvider {
  /** The package a row names. */
  package: string
  /** The id it registers in ctx.web. */
  id: string
  kind: 'search' | 'fetch'
  /** Config key naming the credential, e.g. apiKeyEnv. */
  credentialKey?: string
  /** Config key of a literal credential, used when the named one is not found. */
  literalKey?: string
  /** Whether a search needs the credential (SearXNG's is for an authenticating proxy, and optional). */
  credentialRequired?: boolean
  /** The environment variable read when the row sets no baseURL. */
  baseURLEnv?: string
  /** Used when neither the row nor the variable sets one; none for SearXNG. */
  defaultBaseURL?: string
  /** Whether the base URL is always probed when on a non-public address (a self-hosted instance), or only when the operator moved it there. */
  selfHosted?: boolean
}

export const KNOWN_PROVIDERS: KnownProvider[] = [
  {
    package: 'dsh-web-search-deepseek',
    id: 'deepseek-official',
    kind: 'search',
    credentialKey: 'apiKeyEnv',
    literalKey: 'apiKey',
    credentialRequired: true,
    baseURLEnv: 'DEEPSEEK_SEARCH_BASE_URL',
    defaultBaseURL: 'https://api.deepseek.com/anthropic',
  },
  {
    package: 'dsh-web-search-openai',
    id: 'openai-official',
    kind: 'search',
    credentialKey: 'apiKeyEnv',
    literalKey: 'apiKey',
    credentialRequired: true,
    baseURLEnv: 'OPENAI_SEARCH_BASE_URL',
    defaultBaseURL: 'https://api.openai.com',
  },
  {
    package: 'dsh-web-search-brave',
    id: 'brave',
    kind: 'search',
    credentialKey: 'apiKeyEnv',
    literalKey: 'apiKey',
    credentialRequired: true,
    baseURLEnv: 'BRAVE_SEARCH_BASE_URL',
    defaultBaseURL: 'https://api.search.brave.com/res/v1',
  },
  {
    package: 'dsh-web-search-anthropic',
    id: 'anthropic-official',
    kind: 'search',
    credentialKey: 'apiKeyEnv',
    literalKey: 'apiKey',
    credentialRequired: true,
    baseURLEnv: 'ANTHROPIC_SEARCH_BASE_URL',
    defaultBaseURL: 'https://api.anthropic.com',
  },
  {
    package: 'dsh-web-search-gemini',
    id: 'gemini-official',
    kind: 'search',
    credentialKey: 'apiKeyEnv',
    literalKey: 'apiKey',
    credentialRequired: true,
    baseURLEnv: 'GEMINI_SEARCH_BASE_URL',
    defaultBaseURL: 'https://generativelanguage.googleapis.com',
  },
  {
    package: 'dsh-web-search-searxng',
    id: 'searxng',
    kind: 'search',
    credentialKey: 'authEnv',
    literalKey: 'authValue',
    credentialRequired: false,
    baseURLEnv: 'SEARXNG_BASE_URL',
    selfHosted: true,
  },
  { package: 'dsh-web-fetch-http', id: 'http', kind: 'fetch' },
]

export function knownProvider(packageName: string): KnownProvider | undefined {
  return KNOWN_PROVIDERS.find((provider) => provider.package === packageName)
}
