import assert from 'node:assert/strict'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CLI, LOOPBACK_ONLY, PLUGINS, ROOT, tempHome } from './helpers.js'
import { PageServer } from './page-server.js'
import { FixtureServer } from './support/fixture-server.js'

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`gave up waiting for ${what}`)
}


/** A real MCP client from the SDK talking to `dsh mcp ARGS` over stdio, with its own $DSH_HOME and loopback-only providers. */
async function connectDsh(args: string[], home: string, env: Record<string, string> = {}, onStderr?: (text: string) => void): Promise<Client> {
  const merged = { ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home, ...env }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    cwd: ROOT,
    env: Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)) as Record<string, string>,
    stderr: 'pipe',
  })
  if (onStderr) transport.stderr?.on('data', (chunk) => onStderr(String(chunk)))
  const client = new Client({ name: 'dsh-test-client', version: '0.0.0' })
  await client.connect(transport)
  return client
}

describe('dsh mcp', () => {
  let home: string
  let client: Client
  let stderr = ''
  before(async () => {
    home = await tempHome()
    const overlay = join(home, 'echo.cordis.yml')
    // The noisy row prints with console.log: none of it may reach stdout, the protocol channel.
    await writeFile(overlay, `- id: echo\n  name: ${PLUGINS}/echo-tool.mjs\n  config: { prefix: mcp }\n- id: noisy\n  name: ${PLUGINS}/noisy.mjs\n`)
    client = await connectDsh(['--preset', 'minimal', '--config', overlay], home, {}, (text) => (stderr += text))
  })
  after(async () => {
    await client?.close()
    await rm(home, { recursive: true, force: true })
  })

  it('lists the roster with names, descriptions and input schemas', async () => {
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((tool) => tool.name), ['echo'])
    assert.equal(tools[0].description, 'Echoes the text back. Test tool.')
    assert.equal((tools[0].inputSchema as any).additionalProperties, false)
  })

  it('calls a tool through ctx.tools and returns text and structured content, in a session under $DSH_HOME', async () => {
    const result: any = await client.callTool({ name: 'echo', arguments: { text: 'over mcp' } })
    assert.equal(result.isError, false)
    assert.deepEqual(result.content, [{ type: 'text', text: 'mcp: over mcp' }])
    assert.equal(result.structuredContent.text, 'over mcp')
    const [id] = await readdir(join(home, 'sessions'))
    const events = (await readFile(join(home, 'sessions', id, 'events.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
    assert.ok(events.some((event) => event.type === 'tool/result' && event.data.content === 'mcp: over mcp'))
    assert.equal(result.structuredContent.session, id)
  })

  it('returns failures as isError with the typed message', async () => {
    const refused: any = await client.callTool({ name: 'echo', arguments: { text: 'x', headers: {} } })
    assert.equal(refused.isError, true)
    assert.match(refused.content[0].text, /unknown argument "headers"/)
    const typed: any = await client.callTool({ name: 'echo', arguments: { text: 'web-error' } })
    assert.equal(typed.isError, true)
    assert.equal(typed._meta['dsh/errorCode'], 'WEB_FETCH_FAILED')
  })

  it('cancels the call when the request is cancelled', async () => {
    const controller = new AbortController()
    const pending = client.callTool({ name: 'echo', arguments: { text: 'slow' } }, undefined, { signal: controller.signal })
    setTimeout(() => controller.abort('the user changed their mind'), 100)
    await assert.rejects(pending)
    const [id] = await readdir(join(home, 'sessions'))
    const aborted = await waitFor(async () => {
      const events = (await readFile(join(home, 'sessions', id, 'events.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
      return events.find((event) => event.type === 'tool/result' && event.data.error?.code === 'WEB_ABORTED')
    }, 'the aborted result in the session log')
    assert.ok(aborted)
  })

  it('keeps stdout for protocol messages: logs and plugin prints go to stderr', () => {
    assert.match(stderr, /dsh mcp: serving 1 tool\(s\)/)
    assert.match(stderr, /noisy plugin says hi/)
    assert.match(stderr, /noisy pre-execute/)
  })
})

describe('dsh mcp with the standard preset', () => {
  let home: string
  let client: Client
  let messages: FixtureServer
  let pages: PageServer
  before(async () => {
    home = await tempHome()
    messages = await FixtureServer.start(new URL('../packages/web-search-deepseek/tests/fixtures/', import.meta.url))
    pages = await new PageServer().listen()
    const overlay = join(home, 'trust-loopback.cordis.yml')
    await writeFile(overlay, `- id: web-fetch-http\n  config: { privateHosts: ['127.0.0.1'] }\n`)
    client = await connectDsh(['--preset', 'standard', '--config', overlay], home, { DEEPSEEK_API_KEY: 'sk-mcp-env-key', DEEPSEEK_SEARCH_BASE_URL: `${messages.url}/anthropic` })
  })
  after(async () => {
    await client?.close()
    await messages.close()
    await pages.close()
    await rm(home, { recursive: true, force: true })
  })

  it('lists web_fetch and web_search with their schemas', async () => {
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((tool) => tool.name), ['web_fetch', 'web_search'])
    const fetchSchema = tools[0].inputSchema as any
    assert.equal(fetchSchema.additionalProperties, false)
    assert.deepEqual(fetchSchema.required, ['url'])
  })

  it('fetches a trusted loopback page through web_fetch', async () => {
    const result: any = await client.callTool({ name: 'web_fetch', arguments: { url: `${pages.origin}/article` } })
    assert.equal(result.isError, false, result.content[0].text)
    assert.match(result.content[0].text, /untrusted-content/)
    assert.match(result.content[0].text, /Paragraph 1 of the loopback article/)
    assert.equal(result.structuredContent.status, 200)
  })

  it('calls web_search against a local Messages fixture', async () => {
    messages.reset()
    messages.reply('deepseek-multi-result')
    const result: any = await client.callTool({ name: 'web_search', arguments: { queries: ['node lts'] } })
    assert.equal(result.isError, false, result.content[0].text)
    assert.equal(result.structuredContent.sources[0].url, 'https://nodejs.org/en/about/previous-releases')
    assert.equal(messages.requests[0].headers['x-api-key'], 'sk-mcp-env-key')
  })

  it('returns a typed error for a blocked address', async () => {
    // 127.0.0.2 is loopback too, but only 127.0.0.1 is trusted: refused before any connection.
    const result: any = await client.callTool({ name: 'web_fetch', arguments: { url: `http://127.0.0.2:${pages.port}/article` } })
    assert.equal(result.isError, true)
    assert.equal(result._meta['dsh/errorCode'], 'WEB_BLOCKED_ADDRESS')
    assert.match(result.content[0].text, /127\.0\.0\.0\/8/)
  })

  it('cancels a slow fetch', async () => {
    const controller = new AbortController()
    const pending = client.callTool({ name: 'web_fetch', arguments: { url: `${pages.origin}/slow` } }, undefined, { signal: controller.signal })
    setTimeout(() => controller.abort('no longer needed'), 300)
    await assert.rejects(pending)
    const [id] = await readdir(join(home, 'sessions'))
    const result = await waitFor(async () => {
      const events = (await readFile(join(home, 'sessions', id, 'events.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
      return events.find((event) => event.type === 'tool/result' && event.data.tool === 'web_fetch' && event.data.error?.code === 'WEB_ABORTED')
    }, 'the cancelled fetch in the session log')
    assert.ok(result)
  })
})

describe('dsh mcp with the ptc preset', () => {
  let home: string
  let client: Client
  before(async () => {
    home = await tempHome()
    client = await connectDsh(['--preset', 'ptc'], home)
  })
  after(async () => {
    await client?.close()
    await rm(home, { recursive: true, force: true })
  })

  it('shows run_code alone, answers while code loops, and cancels the loop', async () => {
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((tool) => tool.name), ['run_code'])
    const controller = new AbortController()
    const pending = client.callTool({ name: 'run_code', arguments: { code: 'while (true) {}', timeout_ms: 60_000 } }, undefined, { signal: controller.signal })
    pending.catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 300))
    // The server still answers while the code runs: the loop is not on its event loop.
    await client.ping()
    controller.abort('stop the loop')
    await assert.rejects(pending)
    const [id] = await readdir(join(home, 'sessions'))
    const cancelled = await waitFor(async () => {
      const events = (await readFile(join(home, 'sessions', id, 'events.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
      return events.find((event) => event.type === 'tool/result' && event.data.tool === 'run_code' && event.data.error?.code === 'CODE_CANCELLED')
    }, 'the cancelled run in the session log')
    assert.ok(cancelled)
  })
})
