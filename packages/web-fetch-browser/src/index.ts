import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { resolveCredential } from 'dsh-web'
import type { ProxyOptions } from 'dsh-web-egress'
import { checkBrowser } from './browser-check.js'
import { type BrowserFetcherOptions, PROVIDER_ID, createBrowserFetcher } from './browser-fetcher.js'

export const name = 'dsh-web-fetch-browser'
export const inject = ['web']

export interface Config {
  executablePath: string
  privateHosts: string[]
  resolve: Record<string, string>
  allowedDomains: string[]
  blockedDomains: string[]
  timeoutMs: number
  settleMs: number
  maxBytes: number
  maxRequests: number
  maxContexts: number
  memoryMb: number
  rendererHeapMb: number
  userAgent?: string
  artifactThreshold: number
  extractTimeoutMs: number
  cacheTtlMs: number
  proxy?: ProxyOptions
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  executablePath: Schema.string().default('/usr/bin/chromium').description("The Chromium to run: Debian's chromium package by default (nothing is ever downloaded)."),
  privateHosts: Schema.array(String).default([]).description('Host names, addresses or CIDR ranges that may be fetched although they are not public, by the page and by everything it loads. Trusts exactly what it names.'),
  resolve: Schema.dict(String).default({}).description('Fixed answers for name resolution, host name to IP address (like curl --resolve); still checked unless privateHosts names the host.'),
  allowedDomains: Schema.array(String).default([]).description('When not empty, the page and every request it makes must be on these entries (same forms as web-fetch-http).'),
  blockedDomains: Schema.array(String).default([]).description('The page and its requests are never fetched from these entries.'),
  timeoutMs: Schema.natural().role('ms').min(1000).default(30_000).description('Deadline of a render: starting the browser, navigation, settling and reading the DOM (extraction then has extractTimeoutMs, as for a static page). A page not finished by then is read as it stands, marked partial.'),
  settleMs: Schema.natural().role('ms').default(500).description('After load, the page counts as settled once no request has been open this long.'),
  maxBytes: Schema.natural().min(1024).default(20 * 1024 * 1024).description("Bytes the page's traffic may bring back, all its requests together, and the cap on its rendered HTML."),
  maxRequests: Schema.natural().min(1).default(300).description('Requests one page may make (tunnels included); the rest are refused and counted in the provenance.'),
  maxContexts: Schema.natural().min(1).max(16).default(2).description('Pages rendered at once, each in a fresh context; more wait within their deadline.'),
  memoryMb: Schema.natural().min(256).default(2048).description("Resident memory of the browser's whole process tree; past it the browser is killed (the calls in it end with WEB_DOCUMENT_TOO_COMPLEX) and started again at the next call."),
  rendererHeapMb: Schema.natural().min(64).default(512).description('V8 heap of each renderer process; a page past it crashes its renderer, not the browser.'),
  userAgent: Schema.string().description("User-Agent of the browser's requests (default: Chromium's own)."),
  artifactThreshold: Schema.natural().default(200_000).description('Converted text longer than this many characters is also written whole to an artifact file.'),
  extractTimeoutMs: Schema.natural().role('ms').min(1).default(15_000).description('Deadline for turning the rendered page into text.'),
  cacheTtlMs: Schema.natural().role('ms').default(10 * 60_000).description('How long a rendered document is kept in this process, so that the next part of it (offset) pages the same snapshot instead of rendering again (0 keeps none).'),
  proxy: Schema.union([
    Schema.object({
      url: Schema.string().description('HTTP proxy for every request of the browser (http://HOST:PORT); overrides HTTPS_PROXY and HTTP_PROXY.'),
      noProxy: Schema.array(String).default(undefined as unknown as string[]).description('Hosts that go direct, read as NO_PROXY entries; overrides NO_PROXY.'),
      fakeIpRanges: Schema.array(String).default([]).description('CIDR ranges a local fake-IP resolver answers names with; such answers pass for names, never for an address in a URL.'),
      resolveLocally: Schema.boolean().default(true).description('On the proxy route, also resolve names here and refuse any non-public answer.'),
      credential: Schema.string().description('Name of a credential holding user:password for the proxy (dsh credentials set NAME); never the value itself.'),
      tunnelHttp: Schema.boolean().default(true).description('Send plain http requests through a CONNECT tunnel like https ones; false sends them to the proxy as plain proxied requests.'),
    }),
    Schema.const(undefined),
  ]).description('The operator\'s proxy, which the browser\'s vetting proxy forwards to (docs/security.md, "Rendering").'),
})

export function apply(ctx: Context, config: Config) {
  // A misspelled key (privateHost, memoryMB) is refused here, whichever host mounts the row.
  refuseUnknownKeys(name, Config, config)
  const options: BrowserFetcherOptions = {
    ...config,
    resolveCredential: async (ref, signal) => (await resolveCredential(ctx, { providerId: PROVIDER_ID, ref, signal })).value,
  }
  const fetcher = createBrowserFetcher(options)
  ctx.web.registerFetchProvider({ ...fetcher, check: () => checkBrowser(fetcher, config.timeoutMs) })
  // The browser, its profile and the extraction worker end with the plugin.
  ctx.effect(() => () => void fetcher.close())
}

export { createBrowserFetcher, PROVIDER_ID }
export type { BrowserFetcher, BrowserFetcherOptions } from './browser-fetcher.js'
