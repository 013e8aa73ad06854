import { type Context, Schema } from 'cordis'
import { type LimitRule, refuseUnknownKeys } from 'dsh-host'
import { LimitRuleSchema, resolveCredential } from 'dsh-web'
import type { ProxyOptions } from 'dsh-web-egress'
import { type HttpFetcherOptions, createHttpFetcher } from './http-fetcher.js'

export const name = 'dsh-web-fetch-http'
export const inject = ['web']

export interface Config {
  privateHosts: string[]
  resolve: Record<string, string>
  allowedDomains: string[]
  blockedDomains: string[]
  maxBytes: number
  timeoutMs: number
  maxRedirects: number
  userAgent?: string
  cacheTtlMs: number
  limitPerDomain: LimitRule
  limitPerDomainOverrides: Record<string, LimitRule>
  artifactThreshold: number
  extractTimeoutMs: number
  extractWorkers?: number
  recycleAfterJobs: number
  documentProcesses: number
  documentMemoryMb: number
  respectRobots: boolean
  proxy?: ProxyOptions
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  privateHosts: Schema.array(String).default([]).description('Host names, addresses or CIDR ranges that may be fetched although they are not public. Trusts exactly what it names.'),
  resolve: Schema.dict(String)
    .default({})
    .description('Fixed answers for name resolution, host name to IP address (like curl --resolve). The address is still checked unless privateHosts names the host.'),
  allowedDomains: Schema.array(String)
    .default([])
    .description('When not empty, only URLs on these entries are fetched, on every hop: example.com (and subdomains), *.example.com (subdomains only), addresses, CIDR ranges, with optional :port and /path (docs/security.md, "Domain lists").'),
  blockedDomains: Schema.array(String).default([]).description('URLs on these entries are never fetched, on any hop; same entry forms as allowedDomains.'),
  maxBytes: Schema.natural().min(1024).default(5 * 1024 * 1024).description('Byte cap on a response body, on the wire and after decompression.'),
  timeoutMs: Schema.natural().role('ms').min(1).default(30_000).description('Deadline of a whole fetch: connection, redirects and body.'),
  maxRedirects: Schema.natural().max(20).default(5).description('Redirects followed at most; each hop is vetted again.'),
  userAgent: Schema.string().description('User-Agent header sent with every request.'),
  cacheTtlMs: Schema.natural().role('ms').default(10 * 60_000).description('How long a converted document is kept for paging and answers other calls, in the seam\'s shared state (this process, or ctx.stateStore when a row provides it; 0 keeps none).'),
  limitPerDomain: LimitRuleSchema.description('The limit of every site (registrable domain, e.g. example.co.uk): requests per interval and requests at once, counted across every process on the shared state store (ctx.stateStore, e.g. the dsh-state-redis row). A fetch over it waits within its deadline, or ends with WEB_RATE_LIMITED.'),
  limitPerDomainOverrides: Schema.dict(LimitRuleSchema).default({}).description('Limits of named sites instead of limitPerDomain, by registrable domain or address, e.g. { "example.com": { requests: 1, intervalSeconds: 1 } }.'),
  artifactThreshold: Schema.natural().default(200_000).description('Converted text longer than this many characters is also written whole to an artifact file.'),
  extractTimeoutMs: Schema.natural().role('ms').min(1).default(15_000).description('Deadline for turning one page into text.'),
  extractWorkers: Schema.natural().min(1).max(16).description('Extraction worker threads (default: cores − 1, 1 to 4).'),
  recycleAfterJobs: Schema.natural().min(1).default(2000).description('An extraction worker is replaced after this many pages (a new one runs slower until V8 has optimised it).'),
  respectRobots: Schema.boolean().default(false).description('Read each origin\'s robots.txt first (through the same address policy and proxy route, kept per origin for an hour) and refuse with WEB_BLOCKED_URL what it disallows for dsh-web. Off by default: web_fetch fetches the pages a user or their agent asked for, not a crawl (docs/security.md, "robots.txt").'),
  documentProcesses: Schema.natural().min(1).max(8).default(2).description('PDFs read at once, each in a child process of its own (idle ones included); further PDFs wait within their deadline. With documentMemoryMb, bounds what PDFs hold: documentProcesses x documentMemoryMb.'),
  documentMemoryMb: Schema.natural().min(64).max(4096).default(512).description('Resident memory of one PDF\'s process, V8 heap and ArrayBuffers alike; past it the process is killed and the fetch ends with WEB_DOCUMENT_TOO_COMPLEX.'),
  // A union with undefined: no `proxy` key unless the row writes one.
  proxy: Schema.union([
    Schema.object({
      url: Schema.string().description('HTTP proxy for every target (http://HOST:PORT); overrides HTTPS_PROXY and HTTP_PROXY.'),
      noProxy: Schema.array(String).default(undefined as unknown as string[]).description('Hosts that go direct, read as NO_PROXY entries (host, .suffix, host:port, *); overrides NO_PROXY.'),
      fakeIpRanges: Schema.array(String).default([]).description('CIDR ranges a local fake-IP resolver answers names with (e.g. 198.18.0.0/15); such answers pass for names, never for an address in the URL.'),
      resolveLocally: Schema.boolean().default(true).description('On the proxy route, also resolve names here and refuse any non-public answer (advisory: the proxy may resolve differently).'),
      credential: Schema.string().description('Name of a credential holding user:password for the proxy (dsh credentials set NAME); never the value itself.'),
      tunnelHttp: Schema.boolean().default(true).description('Send http targets through a CONNECT tunnel like https ones; false sends them to the proxy as plain proxied requests (for proxies that allow CONNECT to port 443 only; the proxy then sees their paths and headers).'),
    }),
    Schema.const(undefined),
  ]).description('Fetching through an HTTP proxy (docs/security.md, "Through a proxy").'),
})

export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  const options: HttpFetcherOptions = {
    ...config,
    // The seam's state at every fetch, through this plugin's own ctx.web.
    state: () => ctx.web.state,
    resolveCredential: async (ref, signal) => (await resolveCredential(ctx, { providerId: 'http', ref, signal })).value,
  }
  const fetcher = createHttpFetcher(options)
  ctx.web.registerFetchProvider(fetcher)
  // Workers end with the plugin.
  ctx.effect(() => () => void fetcher.close())
}

export { createHttpFetcher }
export type { HttpFetcher, HttpFetcherOptions } from './http-fetcher.js'
// The resolver an options object may carry (HttpFetcherOptions.lookup).
export type { LookupFunction } from 'dsh-web-egress'
