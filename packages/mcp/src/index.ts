/**
 * `dsh-mcp`: the MCP server over a composition's tools, on stdio and over
 * Streamable HTTP (bearer tokens, OAuth access tokens, the HTTP guard and
 * limits), typed against the contract's `ctx.tools` and `ctx.session`; and
 * its commands, `dsh mcp` and `dsh mcp token`, which dsh-cli's dsh adds to
 * dsh-harness's program. Nothing here loads the MCP SDK until a server is made.
 */
export { mcpCommands } from './commands/mcp-commands.js'
export type { McpFlags } from './commands/mcp-command.js'
