import type { CommandLineExtension } from 'dsh-harness/cli'

/**
 * dsh mcp and dsh mcp token, added to dsh's program (dsh-cli's dsh adds
 * them): the options and help, where they have always stood. This file
 * loads nothing but the harness's light CLI entry; each action imports the
 * command it runs, and the MCP SDK with it, when it runs.
 */
export const mcpCommands: CommandLineExtension = ({ program, io, action, withBootOptions, globals, examples, collect }) => {
  const mcp = withBootOptions(program.command('mcp'), false)
    .description('serve the tools over MCP: on stdio, or over Streamable HTTP with --http')
    .option('--http <[host:]port>', 'serve over Streamable HTTP (stateless) on this address (default host 127.0.0.1)')
    .option('--max-message-bytes <n>', 'stdio: the largest message (default 4194304)')
    .option('--max-concurrent-calls <n>', 'calls at once (stdio: per connection, default 8; HTTP: per token and process)')
    .option('--no-auth', 'HTTP on a loopback address only: accept calls without a token')
    .option('--allowed-host <name>', 'HTTP: a Host name clients use (repeatable; needed off loopback)', collect)
    .option('--allowed-origin <origin>', 'HTTP: an Origin browsers may call from (repeatable)', collect)
    .option('--max-body-bytes <n>', 'HTTP: the largest request body, counted as it streams (default 4194304)')
    .option('--max-json-depth <n>', 'HTTP: how deep a request\'s JSON may nest, checked before it is parsed (default 128)')
    .option('--max-connections <n>', 'HTTP: connections open at once (default 256)')
    .option('--max-pending-connections <n>', 'HTTP: of those, connections without a valid token yet; the oldest is closed for a new one (default 64)')
    .option('--headers-timeout <ms>', 'HTTP: time to send a request head, then 408 (default 10000)')
    .option('--calls-per-minute <n>', 'HTTP: calls a minute per token and process, the calls run_code makes included (default 120)')
    .option('--oauth-issuer <url>', 'HTTP: also accept JWT access tokens of this authorization server')
    .option('--oauth-audience <uri>', "HTTP: this server's resource identifier, which those tokens must name")
    .option('--oauth-jwks-url <url>', "HTTP: the issuer's keys, when its metadata does not say")
    .addHelpText('after', examples('dsh mcp --preset standard', 'dsh mcp --http 8080 --preset standard', 'dsh mcp token create ci-agent --expires 30d'))
    .action(action(async (opts) =>
      (await import('./mcp-command.js')).runMcp(globals(opts), io, {
        http: opts.http,
        maxMessageBytes: opts.maxMessageBytes,
        maxConcurrentCalls: opts.maxConcurrentCalls,
        noAuth: opts.auth === false ? true : undefined,
        allowedHost: opts.allowedHost,
        allowedOrigin: opts.allowedOrigin,
        maxBodyBytes: opts.maxBodyBytes,
        maxJsonDepth: opts.maxJsonDepth,
        maxConnections: opts.maxConnections,
        maxPendingConnections: opts.maxPendingConnections,
        headersTimeout: opts.headersTimeout,
        callsPerMinute: opts.callsPerMinute,
        oauthIssuer: opts.oauthIssuer,
        oauthAudience: opts.oauthAudience,
        oauthJwksUrl: opts.oauthJwksUrl,
      }),
    ))
  const token = mcp.command('token').description("the bearer tokens of dsh mcp --http (only a hash is kept: under $DSH_HOME, or in the composition's shared state store)")
  const tokenAction = (what: string) => action(async (_opts, [name], command) => {
    const opts = command.optsWithGlobals()
    return (await import('./mcp-token-command.js')).runMcpToken(globals(opts), name === undefined ? [what] : [what, name], { json: !!opts.json, expires: opts.expires }, io)
  })
  withBootOptions(token.command('create')).description('create a token and print it, once').argument('<name>').option('--expires <age>', 'a lifetime: 30d, 12h')
    .addHelpText('after', examples('dsh mcp token create ci-agents --expires 30d', 'dsh mcp token create ci-agents --config redis-state')).action(tokenAction('create'))
  withBootOptions(token.command('list')).description('the tokens, without their values, and the store they are in').action(tokenAction('list'))
  withBootOptions(token.command('revoke')).description('revoke a token: refused on its next request, in every process on its store').argument('<name>').action(tokenAction('revoke'))
}
