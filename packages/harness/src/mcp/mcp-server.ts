import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Composition } from '../compose/boot.js'
import type { SessionService } from '../session/index.js'
import type { ToolsService } from '../tools/index.js'

export interface McpServeOptions {
  composition: Composition
  /** Where logs go; stdout carries protocol messages only. */
  log(text: string): void
  version: string
}

/**
 * Serves the composition's tool roster over MCP on stdio. Every call goes
 * through `ctx.tools.invoke` (validation, tools/pre-execute, session events);
 * one session per connection; a cancelled request aborts its call.
 */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const { composition, log } = options
  const tools = composition.ctx.get('tools') as ToolsService | undefined
  const sessions = composition.ctx.get('session') as SessionService | undefined
  if (!tools || !sessions) throw new Error('dsh mcp needs the tools and session services; check the rows with dsh compose.')
  const session = await sessions.create()
  log(`dsh mcp: serving ${tools.roster().length} tool(s); session ${session.id} at ${session.dir}`)

  const server = new Server({ name: 'dsh', version: options.version }, { capabilities: { tools: { listChanged: false } } })

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.roster().map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: 'object'; [key: string]: unknown },
    })),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name
    const visible = tools.roster().some((tool) => tool.name === name)
    if (!visible) {
      return { content: [{ type: 'text' as const, text: `There is no tool named "${name}". Available tools: ${tools.roster().map((tool) => tool.name).join(', ')}.` }], isError: true }
    }
    const outcome = await tools.invoke(name, request.params.arguments ?? {}, { session, signal: extra.signal })
    const structured = outcome.structured
    return {
      content: [{ type: 'text' as const, text: outcome.content }],
      ...(structured !== null && typeof structured === 'object' && !Array.isArray(structured) ? { structuredContent: structured as Record<string, unknown> } : {}),
      isError: outcome.isError,
      _meta: { 'dsh/callId': outcome.callId, 'dsh/session': session.id, ...(outcome.error ? { 'dsh/errorCode': outcome.error.code } : {}) },
    }
  })

  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.once('end', () => resolve())
  })
  await server.connect(transport)
  await closed
  await server.close().catch(() => {})
  log(`dsh mcp: connection closed; session ${session.id}`)
}
