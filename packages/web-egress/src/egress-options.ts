import type { LookupFunction } from './address-policy.js'

/** Where a fetch provider's requests may go and how they get there: what an operator sets on every fetch row alike. */
export interface EgressOptions {
  /** Name resolution, same shape as `dns.lookup` with `{ all: true }` (tests, operators). */
  lookup?: LookupFunction
  /**
   * Fixed answers for name resolution, host -> address(es), like curl's
   * --resolve. The answers are vetted like any other (unless privateHosts
   * names the host); other names go to `lookup`.
   */
  resolve?: Record<string, string | string[]>
  /** Host names, addresses or CIDR ranges an operator trusts even though they are not public. */
  privateHosts?: string[]
  /** When not empty, only URLs on these entries are fetched, on every hop (docs/security.md, "Domain lists"). */
  allowedDomains?: string[]
  /** URLs on these entries are never fetched, on any hop. */
  blockedDomains?: string[]
  /** The proxy route; overrides HTTPS_PROXY, HTTP_PROXY and NO_PROXY (docs/security.md, "Through a proxy"). */
  proxy?: ProxyOptions
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (default process.env). */
  env?: Record<string, string | undefined>
  /** Looks up `proxy.credential` by name for each fetch (the plugin binds it to ctx.credentials). */
  resolveCredential?: (name: string, signal: AbortSignal) => Promise<string>
}

export interface ProxyOptions {
  /** The proxy for every target, e.g. http://proxy.example:3128. */
  url?: string
  /** Hosts that go direct, read as NO_PROXY entries; replaces NO_PROXY. */
  noProxy?: string[]
  /** CIDR ranges of a local fake-IP resolver: answers for names in them pass (default none). */
  fakeIpRanges?: string[]
  /** On the proxy route, resolve names here too and refuse non-public answers (default true). */
  resolveLocally?: boolean
  /** Name of a credential holding `user:password` for the proxy. */
  credential?: string
  /** Tunnel http targets with CONNECT (default true); false sends them to the proxy in absolute form. */
  tunnelHttp?: boolean
}
