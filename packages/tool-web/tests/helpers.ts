import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { session, tools } from '../../../tests/support/host-services.js'
import * as web from 'dsh-web'
import { abortError, type FetchedDocument, type FetchProvider, type FetchRequest, type ProviderCall, type SearchProvider, type SearchRequest, type SearchResult, type SearchSource, WebError } from 'dsh-web'
import * as toolWeb from 'dsh-tool-web'

export const SEARCH_ID = 'test-search'
export const FETCH_ID = 'test-fetch'

/** What a canned query does: return these sources, fail, wait for the signal, or never settle. */
export type CannedQuery =
  | { sources: SearchSource[]; answer?: SearchResult['answer']; filters?: SearchResult['filters']; queries?: string[]; warnings?: string[]; usage?: SearchResult['usage'] }
  | { fail: WebError }
  | { bug: Error }
  | { wait: true }
  | { hang: true }

export interface SearchCall {
  request: SearchRequest
  call: ProviderCall
  /** Set when the provider saw its signal go down, with the reason. */
  abortedWith?: unknown
}

/** A search provider answering from a table of queries, recording every request it gets. */
export function cannedSearch(table: Record<string, CannedQuery>, id = SEARCH_ID): SearchProvider & { calls: SearchCall[] } {
  const calls: SearchCall[] = []
  return {
    id,
    calls,
    available: () => true,
    async search(request, call) {
      const record: SearchCall = { request, call }
      calls.push(record)
      const canned = table[request.query]
      if (!canned) throw new Error(`test provider: no canned answer for ${JSON.stringify(request.query)}`)
      if ('fail' in canned) throw canned.fail
      if ('bug' in canned) throw canned.bug
      if ('hang' in canned) return new Promise<never>(() => {})
      if ('wait' in canned) return waitForAbort(record, 'The test search')
      return {
        providerId: id,
        query: request.query,
        queries: canned.queries ?? [request.query],
        sources: canned.sources,
        ...(canned.answer ? { answer: canned.answer } : {}),
        filters: canned.filters ?? [],
        ...(canned.usage ? { usage: canned.usage } : {}),
        warnings: canned.warnings ?? [],
      }
    },
  }
}

/** Settles only when the call's signal goes down: records the reason, rejects as a provider would. */
function waitForAbort(record: { call: ProviderCall; abortedWith?: unknown }, what: string): Promise<never> {
  const { signal } = record.call
  return new Promise<never>((_, reject) => {
    const onAbort = () => {
      record.abortedWith = signal.reason
      reject(abortError(signal, what))
    }
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** A known page the fetch provider serves. */
export interface KnownPage {
  text: string
  status?: number
  title?: string
  finalUrl?: string
  artifact?: FetchedDocument['artifact']
}

export interface FetchCall {
  request: FetchRequest
  call: ProviderCall
  abortedWith?: unknown
}

/**
 * A fetch provider that pages known texts and honours `offset` and `maxChars`
 * the way the real one does (an offset past the end is INVALID_ARGUMENT).
 * A URL it does not know is WEB_FETCH_FAILED; `wait:` URLs wait for the signal.
 */
export function pagingFetch(pages: Record<string, KnownPage>, id = FETCH_ID): FetchProvider & { calls: FetchCall[] } {
  const calls: FetchCall[] = []
  return {
    id,
    calls,
    available: () => true,
    async fetch(request, call) {
      const record: FetchCall = { request, call }
      calls.push(record)
      if (request.url.startsWith('wait:')) return waitForAbort(record, 'The test fetch')
      const page = pages[request.url]
      if (!page) throw new WebError('WEB_FETCH_FAILED', `test provider: no page at ${request.url}`)
      const offset = request.offset ?? 0
      const maxChars = request.maxChars ?? 20_000
      const total = page.text.length
      if (offset > total || (offset === total && total > 0)) {
        throw new WebError('INVALID_ARGUMENT', `offset ${offset} is past the end of the document, which has ${total} characters.`)
      }
      const end = Math.min(total, offset + maxChars)
      const status = page.status ?? 200
      const url = page.finalUrl ?? request.url
      const document: FetchedDocument = {
        providerId: id,
        url,
        status,
        contentType: 'text/html',
        format: request.format ?? 'markdown',
        text: page.text.slice(offset, end),
        offset,
        totalChars: total,
        truncated: end < total,
        metadata: page.title ? { title: page.title } : {},
        links: [],
        provenance: {
          requestedUrl: request.url,
          finalUrl: url,
          redirects: url === request.url ? [] : [{ url: request.url, status: 301, location: url }],
          status,
          contentType: 'text/html',
          bytesRead: total,
          durationMs: 1,
          extractor: 'test',
          cacheHit: false,
          fetchedAt: '2026-01-01T00:00:00.000Z',
        },
        warnings: [],
      }
      if (end < total) document.nextOffset = end
      if (page.artifact) document.artifact = page.artifact
      if (status < 200 || status > 299) document.error = { code: 'WEB_HTTP_STATUS', message: `The server answered ${status}.` }
      return document
    },
  }
}

export interface Mounted {
  ctx: Context
  home: string
  cleanup(): Promise<void>
}

export interface MountOptions {
  config?: Partial<toolWeb.Config>
  search?: SearchProvider
  fetch?: FetchProvider
  /** Extra plugins mounted before the start, e.g. a network policy. */
  plugins?: ((ctx: Context) => void)[]
}

/** A real Cordis context with the real session, tools and web services on a temp home. */
export async function mount(options: MountOptions = {}): Promise<Mounted> {
  const home = await mkdtemp(join(tmpdir(), 'dsh-tool-web-'))
  const ctx = new Context()
  ctx.plugin(session, { home })
  ctx.plugin(tools, { mode: 'native' })
  ctx.plugin(web, { searchProvider: SEARCH_ID, fetchProvider: FETCH_ID })
  const { search, fetch } = options
  if (search) ctx.plugin({ name: 'test-search-provider', inject: ['web'], apply: (ctx: Context) => { ctx.web.registerSearchProvider(search) } })
  if (fetch) ctx.plugin({ name: 'test-fetch-provider', inject: ['web'], apply: (ctx: Context) => { ctx.web.registerFetchProvider(fetch) } })
  for (const plugin of options.plugins ?? []) plugin(ctx)
  // Both tools unless the test says otherwise (the plugin's own default leaves web_fetch off).
  ctx.plugin(toolWeb, { fetch: true, ...options.config })
  await ctx.start()
  await ctx.lifecycle.flush()
  return { ctx, home, cleanup: () => rm(home, { recursive: true, force: true }) }
}

/** A `network` service like the host's policy plugin provides, with a fixed answer. */
export function networkPolicy(domains: () => string[] | undefined) {
  return (ctx: Context) => {
    ctx.plugin({ name: 'test-network-policy', apply: (ctx: Context) => { ctx.set('network', { allowedDomains: domains }) } })
  }
}

/** The ids of the untrusted fences opened and closed in a text, in order. */
export function fences(text: string) {
  const opens = [...text.matchAll(/<untrusted-content id="([0-9a-f]+)"/g)].map((match) => match[1])
  const closes = [...text.matchAll(/<\/untrusted-content id="([0-9a-f]+)">/g)].map((match) => match[1])
  return { opens, closes }
}

/** The text inside the one fence of an output (after the fence's own notice line). */
export function fenced(text: string): string {
  const { opens } = fences(text)
  if (opens.length !== 1) throw new Error(`expected one fence, found ${opens.length}`)
  const start = text.indexOf('\n', text.indexOf('\n', text.indexOf(`<untrusted-content id="${opens[0]}"`)) + 1) + 1
  const end = text.indexOf(`\n</untrusted-content id="${opens[0]}">`)
  return text.slice(start, end)
}

export function source(url: string, title: string, snippet?: string, publishedDate?: string): SearchSource {
  return { url, title, ...(snippet ? { snippet } : {}), ...(publishedDate ? { publishedDate } : {}) }
}

/** An input the tool must refuse, and the message that must name what is wrong. */
export type Refusal = [input: unknown, message: RegExp]

/** Invokes the tool with each input; each must end as INVALID_ARGUMENT with its message. */
export async function assertRefused(ctx: Context, tool: string, refusals: Refusal[]): Promise<void> {
  for (const [input, message] of refusals) {
    const outcome = await ctx.tools.invoke(tool, input)
    assert.equal(outcome.error?.code, 'INVALID_ARGUMENT', JSON.stringify(input))
    assert.match(outcome.content, message, JSON.stringify(input))
  }
}
