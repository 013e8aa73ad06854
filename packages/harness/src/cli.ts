#!/usr/bin/env node
import { format, parseArgs } from 'node:util'
import { Logger } from 'cordis'
import { type GlobalOptions, type Output, runCall, runCompose, runCredentials, runSession, runTools, UsageError } from './cli/commands.js'
import { runFetch, runRunCode, runSearch } from './cli/shortcuts.js'
import { isMcpHttpOrToken, runMcp, runMcpRoute } from './cli/mcp-command.js'
import { runDocs } from './cli/docs-command.js'
import { runDoctor } from './cli/doctor.js'
import { escapeForTerminal } from './cli/terminal.js'

const HELP = `dsh: boot a composition of Cordis plugins and use its tools

usage: dsh COMMAND [options]

commands:
  compose [--json]                    the built composition: rows, status, resolved config
  tools [--json]                      the tool roster with descriptions and input schemas
  call TOOL 'JSON' [--session ID]     invoke one tool as the model would
  credentials set NAME                store a credential (value read from stdin)
  credentials unset NAME              remove a stored credential
  credentials list [--json]           stored and referenced credential names (values redacted)
  session show ID [--json]            a session's events
  search QUERY...                     web_search in the standard preset (the words form one query)
  fetch URL [--format markdown|text|html] [--max-chars N] [--offset N] [--extract main|full]
        [--private-host HOST_OR_CIDR]... [--resolve HOST:ADDRESS]...
                                      web_fetch in the standard preset; the last two are operator
                                      settings for the fetch provider, never the model's
  run-code FILE|-                     run_code in the ptc preset (- reads the code from stdin)
  mcp [--max-message-bytes N] [--max-concurrent-calls N]
                                      serve the composition's tools over MCP on stdio
                                      (defaults: 4194304 bytes per message, 8 calls at once)
  docs tools [FILE]                   the tools reference made from the registered schemas
  doctor [--json] [--self-test-fetch] check the composition, providers, keys, base URLs, $DSH_HOME,
                                      proxy, Node and tools; exit 1 when a check fails

options (every command that boots a composition):
  --preset NAME        add presets/NAME.cordis.yml of the config folder
  --config FILE        add an overlay (repeatable, applied in order)
  --config-dir DIR     the config folder: base.cordis.yml and presets/ (default
                       $DSH_CONFIG_DIR, else the one shipped in dsh-harness)
  --json               print exactly one JSON document on stdout
`

// Logs (Cordis and plugins) go to stderr; stdout carries only command output
// (one JSON document with --json, protocol messages under dsh mcp).
for (const target of Logger.targets) target.print = (text: string) => process.stderr.write(text + '\n')
const toStderr = (...args: unknown[]) => void process.stderr.write(escapeForTerminal(format(...args)) + '\n')
console.log = toStderr
console.info = toStderr
console.debug = toStderr

async function main(argv: string[], io: Output): Promise<number> {
  if (isMcpHttpOrToken(argv)) return runMcpRoute(argv, io)
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        preset: { type: 'string' },
        config: { type: 'string', multiple: true },
        'config-dir': { type: 'string' },
        json: { type: 'boolean', default: false },
        session: { type: 'string' },
        format: { type: 'string' },
        'max-chars': { type: 'string' },
        offset: { type: 'string' },
        extract: { type: 'string' },
        'private-host': { type: 'string', multiple: true },
        resolve: { type: 'string', multiple: true },
        'max-message-bytes': { type: 'string' },
        'max-concurrent-calls': { type: 'string' },
        'self-test-fetch': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (error: any) {
    throw new UsageError(`${error?.message ?? error}\nRun dsh --help for usage.`)
  }
  const { values, positionals } = parsed
  const [command, ...args] = positionals
  if (values.help) {
    io.out(HELP)
    return 0
  }
  if (!command) {
    io.err(HELP)
    return 2
  }
  const options: GlobalOptions = {
    preset: values.preset,
    config: values.config ?? [],
    configDir: values['config-dir'],
    json: !!values.json,
    session: values.session,
  }
  if (options.session && !['call', 'search', 'fetch', 'run-code'].includes(command)) throw new UsageError('--session goes with dsh call, search, fetch and run-code.')
  const fetchFlags = ['format', 'max-chars', 'offset', 'extract', 'private-host', 'resolve'] as const
  const misplaced = fetchFlags.find((flag) => values[flag] !== undefined)
  if (misplaced && command !== 'fetch') throw new UsageError(`--${misplaced} goes with dsh fetch.`)
  const mcpFlag = (['max-message-bytes', 'max-concurrent-calls'] as const).find((flag) => values[flag] !== undefined)
  if (mcpFlag && command !== 'mcp') throw new UsageError(`--${mcpFlag} goes with dsh mcp.`)
  if (values['self-test-fetch'] && command !== 'doctor') throw new UsageError('--self-test-fetch goes with dsh doctor.')
  switch (command) {
    case 'compose':
      if (args.length) throw new UsageError('usage: dsh compose [--json]')
      return runCompose(options, io)
    case 'tools':
      if (args.length) throw new UsageError('usage: dsh tools [--json]')
      return runTools(options, io)
    case 'call':
      return runCall(options, args, io)
    case 'credentials':
      return runCredentials(options, args, io)
    case 'session':
      return runSession(options, args, io)
    case 'search':
      return runSearch(options, args, io)
    case 'fetch':
      return runFetch(options, args, {
        format: values.format,
        maxChars: values['max-chars'],
        offset: values.offset,
        extract: values.extract,
        privateHost: values['private-host'] ?? [],
        resolve: values.resolve ?? [],
      }, io)
    case 'run-code':
      return runRunCode(options, args, io)
    case 'docs':
      return runDocs(options, args, io)
    case 'doctor':
      if (args.length) throw new UsageError('usage: dsh doctor [--json] [--self-test-fetch]')
      return runDoctor({ ...options, selfTestFetch: !!values['self-test-fetch'] }, io)
    case 'mcp':
      if (args.length || options.json) throw new UsageError('usage: dsh mcp [--preset NAME] [--config FILE]... [--max-message-bytes N] [--max-concurrent-calls N]')
      return runMcp(options, io, { maxMessageBytes: values['max-message-bytes'], maxConcurrentCalls: values['max-concurrent-calls'] })
    default:
      throw new UsageError(`Unknown command "${command}". Run dsh --help for usage.`)
  }
}

const io: Output = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  // Messages quote errors, which may quote a page or a provider: never raw control characters on stderr.
  err: (text) => process.stderr.write(escapeForTerminal(text.endsWith('\n') ? text : text + '\n')),
}

main(process.argv.slice(2), io).then(
  (code) => finish(code),
  (error) => {
    io.err(`dsh: ${error?.message ?? error}`)
    finish(error instanceof UsageError ? 2 : 1)
  },
)

/** Exits once stdout has drained, even if a plugin left a handle open. */
function finish(code: number) {
  process.exitCode = code
  process.stdout.write('', () => process.exit(code))
}
