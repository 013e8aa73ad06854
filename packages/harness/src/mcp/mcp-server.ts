import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Composition } from '../compose/boot.js'
import type { SessionService } from '../session/index.js'
import type { ToolsService } from '../tools/index.js'
import { DEFAULT_MAX_MESSAGE_BYTES, LineStdioTransport } from './stdio-transport.js'

export const DEFAULT_MAX_CONCURRENT_CALLS = 8

export interface McpServeOptions {
  composition: Composition
  /** Where logs go; stdout carries protocol messages only. */
  log(text: string): void
  version: string
  /** Longest message read from stdin, in bytes (default 4 MiB); a longer one is answered with an error and the connection carries on. */
  maxMessageBytes?: number
  /** Tool calls running at once on the connection (default 8); one more is answered with an error result. */
  maxConcurrentCalls?: number
}

/**
 * Serves the composition's tool roster over MCP on stdio. Every call goes
 * through `ctx.tools.invoke` (validation, tools/pre-execute, session events);
 * one session per connection; a cancelled request aborts its call. Bad
 * input (an oversized or malformed message, one call too many) gets an error
 * answer and the connection carries on.
 */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const { composition, log } = options
  const tools = composition.ctx.get('tools') as ToolsService | undefined
  const sessions = composition.ctx.get('session') as SessionService | undefined
  if (!tools || !sessions) throw new Error('dsh mcp needs the tools and session services; check the rows with dsh compose.')
  const session = await sessions.create()
  log(`dsh mcp: serving ${tools.roster().length} tool(s); session ${session.id} at ${session.dir}`)

  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  const maxConcurrentCalls = options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS
  let running = 0

  const server = new Server({ name: 'dsh', version: options.version }, { capabilities: { tools: { listChanged: false } } })
  server.onerror = (error) => log(`dsh mcp: ${error.message}`)

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
    if (running >= maxConcurrentCalls) {
      const message = `The call to ${name} is refused: ${running} tool calls are already running on this connection, the limit (dsh mcp --max-concurrent-calls ${maxConcurrentCalls}). Call again when one has finished.`
      log(`dsh mcp: ${message}`)
      return { content: [{ type: 'text' as const, text: `Error [TOO_MANY_CALLS]: ${message}` }], isError: true, _meta: { 'dsh/errorCode': 'TOO_MANY_CALLS', 'dsh/session': session.id } }
    }
    running++
    const outcome = await tools.invoke(name, request.params.arguments ?? {}, { session, signal: extra.signal }).finally(() => running--)
    const structured = outcome.structured
    return {
      content: [{ type: 'text' as const, text: outcome.content }],
      ...(structured !== null && typeof structured === 'object' && !Array.isArray(structured) ? { structuredContent: structured as Record<string, unknown> } : {}),
      isError: outcome.isError,
      _meta: { 'dsh/callId': outcome.callId, 'dsh/session': session.id, ...(outcome.error ? { 'dsh/errorCode': outcome.error.code } : {}) },
    }
  })

  const transport = new LineStdioTransport({ maxMessageBytes, limitName: `dsh mcp --max-message-bytes ${maxMessageBytes}` })
  // Set before connect(), which chains its own handler after this one.
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve))
  await server.connect(transport)
  await closed
  await server.close().catch(() => {})
  log(`dsh mcp: connection closed; session ${session.id}`)
}
