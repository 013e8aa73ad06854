import { Schema } from 'cordis'
import type { ModelSearchProxy } from './model-api-client.js'

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
