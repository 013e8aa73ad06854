import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { Context } from 'cordis'
import type { SessionHandle, SessionsService, ToolsService } from 'dsh-host'
import { SERVER_CAPABILITIES, SERVER_NAME, SERVER_VERSION, takeEarlyStdio } from './stdio/early-initialize.js'
import { DEFAULT_MAX_MESSAGE_BYTES, LineStdioTransport } from './stdio/stdio-transport.js'
import { annotateTool } from './tool-annotations.js'
import { toCallToolResult } from './tool-result.js'
import { declareUserUrls, readUserUrlsMeta } from './user-urls-meta.js'

export const DEFAULT_MAX_CONCURRENT_CALLS = 8


export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>

/** What a transport decides before a call runs: the session to record it in, or a refusal. */
export type CallTicket =
  | { session: SessionHandle; signal?: AbortSignal; meta?: Record<string, unknown>; /** The call's id, when the transport must know it (to tell its calls from those run_code makes). */ callId?: string; done(): void }
  | { refused: CallToolResult }

export interface ToolServerOptions {
  tools: ToolsService
  log(text: string): void
  /** Called before each call of a listed tool; may throw an `McpError` to answer with a JSON-RPC error. */
  admit(name: string, extra: CallExtra): Promise<CallTicket>
}

/**
 * One MCP server over the tool roster, for any transport: `tools/list` with
 * annotations, `tools/call` through `ctx.tools.invoke` (validation,
 * tools/pre-execute, session events). The transport decides, per call, the
 * session and the limits (`admit`).
 */
export function createToolServer(options: ToolServerOptions): Server {
  const { tools, log } = options
  const server = new Server({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: SERVER_CAPABILITIES })
  server.onerror = (error) => log(`dsh mcp: ${error.message}`)

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const callable = tools.list()
    return {
      tools: tools.roster().map((tool) => {
        const annotations = annotateTool(tool, callable)
        return {
          name: tool.name,
          title: annotations.title,
          description: tool.description,
          inputSchema: tool.inputSchema as { type: 'object'; [key: string]: unknown },
          annotations,
        }
      }),
    }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name
    const visible = tools.roster().some((tool) => tool.name === name)
    if (!visible) {
      return { content: [{ type: 'text' as const, text: `There is no tool named "${name}". Available tools: ${tools.roster().map((tool) => tool.name).join(', ')}.` }], isError: true }
    }
    const declared = readUserUrlsMeta(request.params._meta)
    if ('refused' in declared) return declared.refused
    const ticket = await options.admit(name, extra)
    if ('refused' in ticket) return ticket.refused
    const { session } = ticket
    try {
      const refused = await declareUserUrls(session, declared.urls)
      if (refused) return { ...refused, _meta: { ...refused._meta, 'dsh/session': session.id } }
      const outcome = await tools.invoke(name, request.params.arguments ?? {}, { session, signal: ticket.signal ?? extra.signal, ...(ticket.callId ? { callId: ticket.callId } : {}) })
      return toCallToolResult(outcome, { 'dsh/callId': outcome.callId, 'dsh/session': session.id, ...ticket.meta, ...(outcome.error ? { 'dsh/errorCode': outcome.error.code } : {}) })
    } finally {
      ticket.done()
    }
  })
  return server
}

export interface McpServeOptions {
  /** The composition's context, whose `tools` and `session` services are served. */
  ctx: Context
  /** Where logs go; stdout carries protocol messages only. */
  log(text: string): void
  /** Longest message read from stdin, in bytes (default 4 MiB); a longer one is answered with an error and the connection carries on. */
  maxMessageBytes?: number
  /** Tool calls running at once on the connection (default 8); one more is answered with an error result. */
  maxConcurrentCalls?: number
}

/** The tools and session services of a composition (the contract's), or a message saying which rows to check. */
export function mcpServices(ctx: Context): { tools: ToolsService; sessions: SessionsService } {
  const tools = ctx.get('tools') as ToolsService | undefined
  const sessions = ctx.get('session') as SessionsService | undefined
  if (!tools || !sessions) throw new Error('dsh mcp needs the tools and session services; check the rows with dsh compose.')
  return { tools, sessions }
}

/**
 * Serves the composition's tool roster over MCP on stdio: one session per
 * connection; a cancelled request aborts its call. Bad input (an oversized
 * or malformed message, one call too many) gets an error answer and the
 * connection carries on.
 */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const { ctx, log } = options
  const { tools, sessions } = mcpServices(ctx)
  const session = await sessions.create()
  await session.append('mcp/session-start', { transport: 'stdio', token: null, pid: process.pid }, { visibility: 'log' })
  log(`dsh mcp: serving ${tools.roster().length} tool(s); session ${session.id} at ${session.dir}`)

  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  const maxConcurrentCalls = options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS
  let running = 0

  const server = createToolServer({
    tools,
    log,
    admit: async (name) => {
      if (running >= maxConcurrentCalls) {
        const message = `The call to ${name} is refused: ${running} tool calls are already running on this connection, the limit (dsh mcp --max-concurrent-calls ${maxConcurrentCalls}). Call again when one has finished.`
        log(`dsh mcp: ${message}`)
        return { refused: { content: [{ type: 'text' as const, text: `Error [TOO_MANY_CALLS]: ${message}` }], isError: true, _meta: { 'dsh/errorCode': 'TOO_MANY_CALLS', 'dsh/session': session.id } } }
      }
      running++
      return { session, done: () => void running-- }
    },
  })

  const early = takeEarlyStdio()
  const transport = new LineStdioTransport({ maxMessageBytes, limitName: `dsh mcp --max-message-bytes ${maxMessageBytes}`, ...(early ? { early } : {}) })
  // Set before connect(), which chains its own handler after this one.
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve))
  await server.connect(transport)
  await closed
  await server.close().catch(() => {})
  log(`dsh mcp: connection closed; session ${session.id}`)
}
