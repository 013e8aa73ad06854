import { Schema } from 'cordis'
import type { ModelSearchProxy } from './model-api-client.js'

/**
 * The Config keys every search provider's row shares, written once: each
 * provider composes them into its own `Schema.object` in its own key order,
 * with its own defaults (its key variable, its deadline) and its own words
 * where they differ (what its retries follow).
 */

/** The keys of a keyed provider: the credential's name, read at every search, and a literal key as the last resort. */
export interface CredentialConfig {
  apiKeyEnv: string
  apiKey?: string
}

/** The keys every provider row ends with: the deadline, the retries, the proxy. */
export interface RequestConfig {
  timeoutMs: number
  maxRetries: number
  proxy?: ModelSearchProxy
}

/** `apiKeyEnv` (default: the vendor's variable) and `apiKey`. */
export function credentialConfig(defaultEnv: string) {
  return {
    apiKeyEnv: Schema.string()
      .default(defaultEnv)
      .description('Name of the credential, resolved at every search: the credentials service when mounted, else this environment variable.'),
    apiKey: Schema.string().role('secret').description('A literal key, used only when the named credential is not found. Prefer `dsh credentials set`.'),
  }
}

export interface RequestConfigOptions {
  /** The deadline's default (60 s unless given). */
  timeoutMs?: number
  /** What the deadline covers, when more than "Deadline of one search, retries included." */
  timeout?: string
  /** What is retried, in the vendor's terms, e.g. "Retries after 429 and 5xx, within the deadline." */
  retries: string
}

/** `timeoutMs`, `maxRetries` (at most 2, default 2) and `proxy`. */
export function requestConfig(options: RequestConfigOptions) {
  return {
    timeoutMs: Schema.natural().role('ms').min(1).default(options.timeoutMs ?? 60_000).description(options.timeout ?? 'Deadline of one search, retries included.'),
    maxRetries: Schema.natural().max(2).default(2).description(options.retries),
    proxy: ProxyConfig,
  }
}

/**
 * The `proxy` section every search provider's row takes (docs/security.md,
 * "Through a proxy"). A union with undefined, so that a row that writes no
 * `proxy` has none, and HTTPS_PROXY, HTTP_PROXY and NO_PROXY decide.
 */
export const ProxyConfig: Schema<ModelSearchProxy | undefined> = Schema.union([
  Schema.object({
    url: Schema.string().description('HTTP proxy for the endpoint (http://HOST:PORT); overrides HTTPS_PROXY and HTTP_PROXY.'),
    noProxy: Schema.array(String).default(undefined as unknown as string[]).description('Hosts that go direct, read as NO_PROXY entries; overrides NO_PROXY.'),
    credential: Schema.string().description('Name of a credential holding user:password for the proxy; never the value itself.'),
  }),
  Schema.const(undefined),
]).description('Searching through an HTTP proxy (docs/security.md, "Through a proxy").')
