import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys, startWhenProvided } from 'dsh-host'
import { FETCH_MAX_CHARS_LIMIT, type ToolWebConfig } from './tool-web-config.js'
import { createWebFetchTool } from './web-fetch-tool.js'
import { createWebSearchTool } from './web-search-tool.js'

export const name = 'dsh-tool-web'

/**
 * Needs `web` and `tools`, uses `network` when there is one. The services are
 * waited for inside (see apply), so that a row whose services nobody provides
 * says so in the log instead of waiting without a word.
 */
export const inject = {
  web: { required: false },
  tools: { required: false },
  network: { required: false },
}

/** Each service this plugin needs, with the row that provides it (the log line and `waitingFor` name them). */
const REQUIRED_SERVICES = {
  web: 'the dsh-web row',
  tools: "a tools service: dsh-harness/tools in dsh-harness, or your host's own (docs/host-contract.md)",
}

export type Config = ToolWebConfig

/** Every key may be left out: the schema fills in the defaults. */
export const Config: Schema<Partial<Config>, Config> = Schema.object({
  search: Schema.boolean().default(true).description('Register the web_search tool.'),
  fetch: Schema.boolean().default(false).description('Register the web_fetch tool. Off unless asked: it reads any public page the model names.'),
  searchTimeoutMs: Schema.natural().role('ms').min(1).default(30_000).description('One deadline for all queries of a web_search call. Provider-neutral; the shipped base gives its DeepSeek search 60 s.'),
  searchMaxQueries: Schema.natural().min(1).max(20).default(4).description('Most queries one web_search call may carry.'),
  fetchTimeoutMs: Schema.natural().role('ms').min(1).default(30_000).description('Deadline of one web_fetch call.'),
  fetchMaxChars: Schema.natural().min(1).max(FETCH_MAX_CHARS_LIMIT).default(20_000).description('Default and largest number of characters of page text one web_fetch call returns.'),
  outputThreshold: Schema.natural().min(1_000).default(50_000).description('Characters of model-facing text above which the complete output is written to an artifact file and the model gets a short head, the path, size and SHA-256.'),
  // On this row, not the network row: the seen URLs are what these tools return (sources, links, redirects), which only they read, and a host other than dsh-harness gets the gate with them.
  provenance: Schema.union(['off', 'warn', 'enforce']).default('off').description('The provenance gate of web_fetch, against a page or snippet that makes the model send data out in a URL it composes: off (any URL; protects nothing), warn (a URL not seen in the session is fetched and recorded, log only, by origin), enforce (it is refused with WEB_URL_NOT_IN_CONTEXT before any request). Seen: web_search results, links of pages fetched in the session, redirects followed, URLs the host declares as the user\'s (docs/security.md, "Exfiltration through fetched URLs").'),
  provenanceSameOrigin: Schema.boolean().default(false).description('With provenance warn or enforce, let through any URL on an origin the session has seen, not only the URLs seen. Weaker: the path and query of such a URL are the model\'s own, and a site that logs its requests receives them.'),
})

/**
 * Registers the enabled tools once `web` and `tools` are there. Enablement
 * alone decides: a missing provider or key fails the call, it never hides the
 * tool.
 */
export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  startWhenProvided(ctx, { plugin: name, required: REQUIRED_SERVICES, optional: ['network'] }, (ready: Context) => {
    if (config.search) ready.tools.register(createWebSearchTool(ready, config))
    if (config.fetch) ready.tools.register(createWebFetchTool(ready, config))
  })
}

/** The services this plugin still waits for, given the context its apply got: how a host reports the row as pending. */
export { waitingFor } from 'dsh-host'

export { createWebSearchTool, webSearchDescription } from './web-search-tool.js'
export { createWebFetchTool, webFetchDescription } from './web-fetch-tool.js'
export { mergeSources, sourceKey } from './merge-sources.js'
export type { MergedSource } from './merge-sources.js'
export type { QueryAnswer, QueryFailure, WebSearchOutput } from './search-output.js'
export type { WebSearchInput } from './search-input.js'
export type { WebFetchInput } from './fetch-input.js'
export type { ToolWebConfig } from './tool-web-config.js'
export { SEEN_URLS_DROPPED_EVENT, URL_NOT_SEEN_EVENT, type ProvenanceMode } from './provenance-gate.js'
