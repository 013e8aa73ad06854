import assert from 'node:assert/strict'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CLI, LOOPBACK_ONLY, PLUGINS, ROOT, tempHome } from './helpers.js'

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`gave up waiting for ${what}`)
}

describe('dsh mcp', () => {
  let home: string
  let client: Client
  let stderr = ''
  before(async () => {
    home = await tempHome()
    const overlay = join(home, 'echo.cordis.yml')
    await writeFile(overlay, `- id: echo\n  name: ${PLUGINS}/echo-tool.mjs\n  config: { prefix: mcp }\n`)
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--preset', 'minimal', '--config', overlay],
      cwd: ROOT,
      env: Object.fromEntries(Object.entries({ ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home }).filter(([, value]) => value !== undefined)) as Record<string, string>,
      stderr: 'pipe',
    })
    transport.stderr?.on('data', (chunk) => (stderr += chunk))
    client = new Client({ name: 'dsh-test-client', version: '0.0.0' })
    await client.connect(transport)
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

  it('keeps stdout for protocol messages: logs go to stderr', () => {
    assert.match(stderr, /dsh mcp: serving 1 tool\(s\)/)
  })
})
