// Both tools through the real providers (dsh-web-search-deepseek, dsh-web-fetch-http)
// against one loopback server: a stand-in for the Messages API and a web page.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import { session, tools } from '../../../tests/support/host-services.js'
import * as toolWeb from 'dsh-tool-web'
import * as web from 'dsh-web'
import * as fetchHttp from 'dsh-web-fetch-http'
import * as searchDeepSeek from 'dsh-web-search-deepseek'
import { fenced } from './helpers.js'

const PARAGRAPHS = Array.from({ length: 40 }, (_, index) => `Paragraph number ${index} of the loopback article says something worth reading.`)
const PAGE = `<!doctype html><html><head><title>Loopback Article</title></head><body>
<nav><a href="/">Home</a></nav>
<article><h1>Loopback Article</h1>${PARAGRAPHS.map((text) => `<p>${text}</p>`).join('\n')}</article>
</body></html>`

function messagesResponse(base: string) {
  return {
    id: 'msg_e2e',
    type: 'message',
    role: 'assistant',
    model: 'deepseek-v4-flash',
    content: [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'loopback article' } },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: [
          { type: 'web_search_result', url: `${base}/article`, title: 'Loopback Article', encrypted_content: 'x', page_age: '2026-11-01' },
          { type: 'web_search_result', url: `${base}/missing`, title: 'A page that is gone', encrypted_content: 'x', page_age: null },
        ],
      },
      {
        type: 'text',
        text: 'The loopback article has forty paragraphs.',
        citations: [{ type: 'web_search_result_location', url: `${base}/article`, title: 'Loopback Article', cited_text: 'Paragraph number 0', encrypted_index: 'y' }],
      },
    ],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 1 } },
  }
}

describe('end to end through the real providers on loopback', () => {
  let server: Server
  let base: string
  let home: string
  let ctx: Context
  const received: string[] = []

  before(async () => {
    server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        if (request.method === 'POST' && request.url?.endsWith('/messages')) {
          received.push(body)
          if (body.includes('retry-after-me')) {
            response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '20' })
            response.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Slow down, says the fixture.' } }))
            return
          }
          if (body.includes('rate-limit-me')) {
            response.writeHead(429, { 'content-type': 'application/json' })
            response.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Too many requests in the fixture.' } }))
            return
          }
          response.writeHead(200, { 'content-type': 'application/json' })
          response.end(JSON.stringify(messagesResponse(base)))
        } else if (request.url === '/article') {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          response.end(PAGE)
        } else {
          response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
          response.end('<html><head><title>Not here</title></head><body><p>This page is gone.</p></body></html>')
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    home = await mkdtemp(join(tmpdir(), 'dsh-tool-web-e2e-'))
    ctx = await mountRealProviders({ maxRetries: 0 }, { fetchMaxChars: 700 })
  })

  /** The real session, tools and web services, the DeepSeek provider aimed at the fixture, the HTTP fetch provider trusting loopback. */
  async function mountRealProviders(deepSeek: Partial<searchDeepSeek.Config>, config: Partial<toolWeb.Config>): Promise<Context> {
    const ctx = new Context()
    ctx.plugin(session, { home })
    ctx.plugin(tools, { mode: 'native' })
    ctx.plugin(web, { searchProvider: 'deepseek-official', fetchProvider: 'http' })
    ctx.plugin(searchDeepSeek, { apiKeyEnv: 'DSH_TOOL_WEB_E2E_UNSET_KEY', apiKey: 'sk-e2e-literal', baseURL: `${base}/anthropic`, ...deepSeek })
    ctx.plugin(fetchHttp, { privateHosts: ['127.0.0.1'] })
    ctx.plugin(toolWeb, { fetch: true, ...config })
    await ctx.start()
    await ctx.lifecycle.flush()
    return ctx
  }

  after(async () => {
    await ctx?.stop()
    await new Promise((resolve) => server?.close(resolve))
    await rm(home, { recursive: true, force: true })
  })

  it('web_search through the DeepSeek provider: sources, model-written summary, a failed query beside them', async () => {
    const s = await ctx.session.create()
    const outcome = await ctx.tools.invoke('web_search', { queries: ['loopback article', 'rate-limit-me'] }, { session: s })
    assert.equal(outcome.isError, false, outcome.content)
    const structured = outcome.structured as any
    assert.equal(structured.providerId, 'deepseek-official')
    assert.deepEqual(structured.sources.map((item: any) => item.url), [`${base}/article`, `${base}/missing`])
    assert.equal(structured.answers[0].text, 'The loopback article has forty paragraphs.')
    assert.deepEqual(structured.failures.map((failure: any) => [failure.query, failure.code]), [['rate-limit-me', 'WEB_PROVIDER_RATE_LIMITED']])
    assert.ok(outcome.content.includes(`[Loopback Article](${base}/article) (published 2026-11-01; query 1)`))
    assert.match(outcome.content, /written by the search provider's model/)
    assert.equal(received.length, 2)
    const events = await s.read()
    assert.deepEqual(events.filter((event) => event.visibility === 'surface').map((event) => event.type), ['tool/call', 'tool/result'])
  })

  it('two identical web_search calls in one process reach the provider twice, each with its request event in its own session (no search cache by default)', async () => {
    const before = received.length
    const sessions = [await ctx.session.create(), await ctx.session.create()]
    for (const s of sessions) {
      const outcome = await ctx.tools.invoke('web_search', { queries: ['the same query twice'] }, { session: s })
      assert.equal(outcome.isError, false, outcome.content)
      assert.equal((outcome.structured as any).fromCache, undefined)
    }
    assert.equal(received.length - before, 2, 'both calls reached the provider')
    for (const s of sessions) {
      const requests = (await s.read()).filter((event) => event.type === searchDeepSeek.DEEPSEEK_REQUEST_EVENT)
      assert.equal(requests.length, 1)
      assert.match(JSON.stringify(requests[0].data), /the same query twice/)
    }
  })

  it('with the search cache turned on, the second identical search says it came from the cache and its session names the first session\'s request', async () => {
    const cached = new Context()
    cached.plugin(session, { home })
    cached.plugin(tools, { mode: 'native' })
    cached.plugin(web, { searchProvider: 'deepseek-official', fetchProvider: 'http', searchCacheTtlMs: 60_000 })
    cached.plugin(searchDeepSeek, { apiKeyEnv: 'DSH_TOOL_WEB_E2E_UNSET_KEY', apiKey: 'sk-e2e-literal', baseURL: `${base}/anthropic`, maxRetries: 0 })
    cached.plugin(toolWeb, {})
    await cached.start()
    await cached.lifecycle.flush()
    try {
      const before = received.length
      const first = await cached.session.create()
      const second = await cached.session.create()
      await cached.tools.invoke('web_search', { queries: ['cache me'] }, { session: first })
      const again = await cached.tools.invoke('web_search', { queries: ['cache me'] }, { session: second })
      assert.equal(received.length - before, 1, 'one request reached the provider')
      const [request] = (await first.read()).filter((event) => event.type === searchDeepSeek.DEEPSEEK_REQUEST_EVENT)
      const fromCache = (again.structured as any).fromCache
      assert.deepEqual(fromCache.map((hit: any) => [hit.query, hit.providerId, hit.requests]), [
        ['cache me', 'deepseek-official', [{ session: first.id, seq: request.seq, type: searchDeepSeek.DEEPSEEK_REQUEST_EVENT, sha256: createHash('sha256').update(JSON.stringify(request.data)).digest('hex') }]],
      ])
      assert.match(again.content, /Note: From the search cache \(searchCacheTtlMs of the web row\): deepseek-official answered this search at \S+; no request was made for this call\./)
      const hits = (await second.read()).filter((event) => event.type === web.SEARCH_CACHE_HIT_EVENT)
      assert.equal(hits.length, 1)
      assert.deepEqual((hits[0].data as any).requests, fromCache[0].requests)
      assert.equal((await second.read()).filter((event) => event.type === searchDeepSeek.DEEPSEEK_REQUEST_EVENT).length, 0)
    } finally {
      await cached.stop()
    }
  })

  it('web_fetch through the HTTP provider: a found URL, paged to the end, and a 404 shown as an error', async () => {
    const s = await ctx.session.create()
    const found = await ctx.tools.invoke('web_search', { queries: ['loopback article'] }, { session: s })
    const url = (found.structured as any).sources[0].url
    const parts: string[] = []
    let offset: number | undefined = 0
    let total = 0
    while (offset !== undefined) {
      const outcome = await ctx.tools.invoke('web_fetch', { url, offset }, { session: s })
      assert.equal(outcome.isError, false, outcome.content)
      const structured = outcome.structured as any
      assert.equal(fenced(outcome.content), structured.text)
      assert.equal(structured.provenance.finalUrl, url)
      parts.push(structured.text)
      total = structured.totalChars
      offset = structured.nextOffset
    }
    assert.ok(parts.length > 1, 'the article takes several pages')
    const text = parts.join('')
    assert.equal(text.length, total)
    for (const paragraph of PARAGRAPHS) assert.ok(text.includes(paragraph), paragraph)
    assert.ok(!text.includes('Home'), 'extract main drops the navigation')

    const missing = await ctx.tools.invoke('web_fetch', { url: `${base}/missing` }, { session: s })
    assert.equal(missing.isError, true)
    assert.equal(missing.error?.code, 'WEB_HTTP_STATUS')
    assert.match(missing.content, /HTTP 404/)
    assert.match(missing.content, /This page is gone/)
  })

  it('a 429 whose retry-after outlasts the tool\'s deadline comes back at once as WEB_PROVIDER_RATE_LIMITED with its retry-after, not as WEB_TIMEOUT after waiting (regression: the tool did not pass its deadline to the provider)', async () => {
    // Retries on (the provider's default), its own deadline 60 s: only the tool's 3 s deadline makes a 20 s wait pointless.
    const retrying = await mountRealProviders({ maxRetries: 2, timeoutMs: 60_000 }, { searchTimeoutMs: 3_000 })
    try {
      const before = received.length
      const outcome = await retrying.tools.invoke('web_search', { queries: ['retry-after-me'] })
      // Without the deadline the provider would start the 20 s wait and the tool's 3 s deadline would end it as WEB_TIMEOUT.
      assert.equal(outcome.error?.code, 'WEB_PROVIDER_RATE_LIMITED', outcome.content)
      assert.equal(received.length - before, 1, 'one attempt: no retry wait was started')
      assert.match(outcome.content, /Slow down, says the fixture\. \(the provider asks to wait 20 s before retrying\)$/)
      const failures = (outcome.structured as any).failures
      assert.deepEqual(
        failures.map((failure: any) => [failure.query, failure.code, failure.retryable, failure.retryAfterMs]),
        [['retry-after-me', 'WEB_PROVIDER_RATE_LIMITED', true, 20_000]],
      )
    } finally {
      await retrying.stop()
    }
  })
})
