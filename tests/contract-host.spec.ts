// Another harness can mount our plugins by implementing the host contract
// (dsh-host) alone. The tiny host below is written here from the contract's
// interfaces and nothing of dsh-harness; the seam, both real providers and the
// real tools mount on it and work against loopback servers.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import {
  CodedError,
  type CredentialsService,
  type JsonValue,
  type ResolvedCredential,
  type SessionEvent,
  type SessionHandle,
  type SessionsService,
  type ToolDefinition,
  type ToolInfo,
  type ToolOutcome,
  type ToolsService,
} from 'dsh-host'
import * as toolWeb from 'dsh-tool-web'
import * as web from 'dsh-web'
import * as fetchHttp from 'dsh-web-fetch-http'
import * as searchDeepSeek from 'dsh-web-search-deepseek'

// ---------------------------------------------------------------- the tiny host

class MemorySession implements SessionHandle {
  readonly events: SessionEvent[] = []
  constructor(readonly id: string, readonly dir: string) {}
  async append(type: string, data: JsonValue, options: { visibility?: 'surface' | 'log' } = {}): Promise<SessionEvent> {
    const event: SessionEvent = { seq: this.events.length + 1, time: new Date().toISOString(), type, visibility: options.visibility ?? 'log', data }
    this.events.push(event)
    return event
  }
  async read(): Promise<SessionEvent[]> {
    return [...this.events]
  }
}

class MemorySessions implements SessionsService {
  readonly sessions = new Map<string, MemorySession>()
  constructor(private readonly home: string) {}
  async create(options: { id?: string } = {}): Promise<MemorySession> {
    const id = options.id ?? randomBytes(4).toString('hex')
    const session = new MemorySession(id, join(this.home, id))
    this.sessions.set(id, session)
    return session
  }
  async open(id: string, options: { create?: boolean } = {}): Promise<MemorySession> {
    const found = this.sessions.get(id)
    if (found) return found
    if (options.create) return this.create({ id })
    throw new Error(`no session ${id}`)
  }
  async read(id: string) {
    return (await this.open(id)).read()
  }
  async history(id: string) {
    return (await this.read(id)).filter((event) => event.visibility === 'surface')
  }
}

class MemoryCredentials implements CredentialsService {
  readonly values = new Map<string, string>()
  resolve(ref: string): ResolvedCredential | undefined {
    const value = this.values.get(ref)
    return value === undefined ? undefined : { value, source: 'tiny-host' }
  }
}

class TinyTools implements ToolsService {
  readonly tools = new Map<string, ToolDefinition>()
  register(definition: ToolDefinition) {
    this.tools.set(definition.name, definition)
    return () => this.tools.delete(definition.name)
  }
  has(name: string) {
    return this.tools.has(name)
  }
  list(): ToolInfo[] {
    return [...this.tools.values()].map(({ name, description, inputSchema, effects }) => ({ name, description, inputSchema, effects: effects ?? [] }))
  }
  roster() {
    return this.list()
  }
  async invoke(name: string, input: unknown, options: { session?: SessionHandle; signal?: AbortSignal; callId?: string } = {}): Promise<ToolOutcome> {
    const callId = options.callId ?? `tiny_${randomBytes(3).toString('hex')}`
    const tool = this.tools.get(name)
    if (!tool) return { callId, tool: name, content: `no tool ${name}`, structured: null, isError: true, error: { code: 'TOOL_NOT_FOUND', message: name } }
    await options.session?.append('tool/call', { callId, tool: name, input: input as JsonValue }, { visibility: 'surface' })
    try {
      const result = await tool.handler(input, { callId, signal: options.signal ?? new AbortController().signal, session: options.session })
      return { callId, tool: name, content: result.content, structured: result.structured ?? null, isError: !!result.isError, ...(result.error ? { error: result.error } : {}) }
    } catch (error) {
      // The contract's typed-error base: any plugin's error, recognised without knowing the plugin.
      if (CodedError.is(error)) return { callId, tool: name, content: error.message, structured: null, isError: true, error: { code: error.code, message: error.message } }
      throw error
    }
  }
}

// ---------------------------------------------------------------- the test

const PAGE = `<!doctype html><html><head><title>Tiny Host Page</title></head><body>
<article><h1>Tiny Host Page</h1>${Array.from({ length: 12 }, (_, index) => `<p>Paragraph ${index} of a page read through a host that is not ours.</p>`).join('\n')}</article>
</body></html>`

describe('the plugins on a host written from the contract alone', () => {
  let server: Server
  let base: string
  let home: string
  let ctx: Context
  const sessions = () => ctx.get('session') as unknown as MemorySessions
  const credentials = () => ctx.get('credentials') as unknown as MemoryCredentials
  const messagesBodies: string[] = []
  const messagesKeys: Array<string | undefined> = []

  before(async () => {
    server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        if (request.method === 'POST' && request.url === '/anthropic/v1/messages') {
          messagesBodies.push(body)
          messagesKeys.push(request.headers['x-api-key'] as string | undefined)
          response.writeHead(200, { 'content-type': 'application/json' })
          response.end(JSON.stringify({
            id: 'msg_tiny', type: 'message', role: 'assistant', model: 'deepseek-v4-flash',
            content: [
              { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'tiny host' } },
              { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: `${base}/page`, title: 'Tiny Host Page', encrypted_content: 'x', page_age: null }] },
            ],
            stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1, server_tool_use: { web_search_requests: 1 } },
          }))
        } else if (request.url === '/page') {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          response.end(PAGE)
        } else {
          response.writeHead(404)
          response.end()
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    home = await mkdtemp(join(tmpdir(), 'dsh-tiny-host-'))

    ctx = new Context()
    ctx.plugin({
      name: 'tiny-host',
      apply(host: Context) {
        host.set('tools', new TinyTools())
        host.set('session', new MemorySessions(home))
        host.set('credentials', new MemoryCredentials())
      },
    })
    ctx.plugin(web, { searchProvider: 'deepseek-official', fetchProvider: 'http' })
    ctx.plugin(searchDeepSeek, { apiKeyEnv: 'TINY_HOST_DEEPSEEK_KEY', baseURL: `${base}/anthropic`, maxRetries: 0 })
    ctx.plugin(fetchHttp, { privateHosts: ['127.0.0.1'] })
    ctx.plugin(toolWeb, { fetch: true })
    await ctx.start()
    await ctx.lifecycle.flush()
  })

  after(async () => {
    await ctx?.stop()
    await new Promise((resolve) => server?.close(resolve))
    await rm(home, { recursive: true, force: true })
  })

  it('mounts the tools on the tiny host', () => {
    assert.deepEqual(ctx.tools.list().map((tool) => tool.name).sort(), ['web_fetch', 'web_search'])
  })

  it('web_fetch reads a trusted loopback page through the real fetcher', async () => {
    const session = await sessions().create()
    const outcome = await ctx.tools.invoke('web_fetch', { url: `${base}/page` }, { session })
    assert.equal(outcome.isError, false, outcome.content)
    assert.match(outcome.content, /Paragraph 11 of a page read through a host that is not ours\./)
    assert.ok((await session.read()).some((event) => event.type === 'web/http-document-fetch'), 'the provider wrote its audit event to the tiny session')
  })

  it("web_search resolves the key through the tiny host's credentials at each call, and logs the request there", async () => {
    const session = await sessions().create()
    const missing = await ctx.tools.invoke('web_search', { queries: ['tiny host'] }, { session })
    assert.equal(missing.isError, true)
    assert.match(missing.content, /WEB_PROVIDER_CREDENTIAL_MISSING|TINY_HOST_DEEPSEEK_KEY/)
    assert.equal(messagesBodies.length, 0)

    credentials().values.set('TINY_HOST_DEEPSEEK_KEY', 'sk-tiny-first')
    const found = await ctx.tools.invoke('web_search', { queries: ['tiny host'] }, { session })
    assert.equal(found.isError, false, found.content)
    assert.deepEqual((found.structured as any).sources.map((source: any) => source.url), [`${base}/page`])
    credentials().values.set('TINY_HOST_DEEPSEEK_KEY', 'sk-tiny-rotated')
    // Another query: the same one would be answered from the seam's search cache, without a key.
    await ctx.tools.invoke('web_search', { queries: ['tiny host, again'] }, { session })
    assert.deepEqual(messagesKeys, ['sk-tiny-first', 'sk-tiny-rotated'])
    const logged = (await session.read()).filter((event) => event.type === 'web/deepseek-search-llm-request')
    assert.equal(logged.length, 2)
    assert.ok(!JSON.stringify(await session.read()).includes('sk-tiny'), 'no key in the session')
  })

  it("a provider's typed error reaches the tiny host as a CodedError with its code", async () => {
    const outcome = await ctx.tools.invoke('web_fetch', { url: 'http://10.0.0.1/' }) // a private literal: refused before any socket
    assert.equal(outcome.isError, true)
    assert.equal(outcome.error?.code, 'WEB_BLOCKED_ADDRESS')
  })
})
