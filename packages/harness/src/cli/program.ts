import { Command, CommanderError, Option } from 'commander'
import type { GlobalOptions, Output } from './commands.js'
import { UsageError } from './errors.js'
import { harnessVersion } from '../package-root.js'

/**
 * The `dsh` command line: every command, its options, help with examples.
 * This file loads commander and nothing heavy; each action imports the code
 * it runs when it runs (the composition loader and Cordis; dsh-mcp's commands
 * load the MCP SDK the same way), so `dsh --version` and `dsh COMMAND --help` load none of it.
 */

const VERSION = harnessVersion()

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value]

/** Options of every command that boots a composition. */
function withBootOptions(command: Command, json = true): Command {
  command
    .option('--preset <name>', 'add presets/NAME.cordis.yml of the config folder (standard, web, ptc, render, provenance, minimal)')
    .option('--config <file|name>', 'add an overlay: a file, or the name of a shipped one (anthropic-search, brave-search, exa-search, gemini-search, openai-search, perplexity-search, redis-state, searxng-search, tavily-search); repeatable, applied in order', collect)
    .option('--config-dir <dir>', 'the config folder: base.cordis.yml and presets/ (default: $DSH_CONFIG_DIR, else the one shipped in dsh-harness)')
    .option('--private-host <host-or-cidr>', 'trust a non-public host or range for fetches (repeatable; an operator setting of the fetch row, never the model\'s)', collect)
    .option('--resolve <host:address>', 'answer HOST with ADDRESS on every port, like curl --resolve without the port (repeatable)', collect)
    .option('--allow-failed-rows', 'go on when a row does not start (its tools are not offered), instead of exiting 1')
  if (json) command.option('--json', 'print exactly one JSON document on stdout (errors too)')
  return command
}

function globals(opts: Record<string, any>): GlobalOptions {
  return {
    preset: opts.preset,
    config: opts.config ?? [],
    configDir: opts.configDir,
    json: !!opts.json,
    session: opts.session,
    allowFailedRows: !!opts.allowFailedRows,
    privateHost: opts.privateHost ?? [],
    resolve: opts.resolve ?? [],
  }
}

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`
}

/**
 * What a package that adds commands to dsh gets (dsh-mcp, whose commands
 * dsh-cli's dsh adds): the program, the output, and the helpers every
 * command of the harness is built with, so an added command takes the same
 * boot options, prints the same way and exits with the same codes.
 */
export interface CommandLineKit {
  program: Command
  io: Output
  /** An action that runs `load` (given the command's options, arguments and itself) and exits with the code it resolves to. */
  action(load: (opts: Record<string, any>, args: any[], command: Command) => Promise<number>): (this: Command, ...args: any[]) => void
  /** Adds the options of every command that boots a composition (and --json unless `json` is false). */
  withBootOptions(command: Command, json?: boolean): Command
  /** The boot options a command was given. */
  globals(opts: Record<string, any>): GlobalOptions
  /** Help text: `Examples:` and a line each. */
  examples(...lines: string[]): string
  /** For a repeatable option. */
  collect(value: string, previous: string[] | undefined): string[]
}

/** Adds commands to the program. */
export type CommandLineExtension = (kit: CommandLineKit) => void

/**
 * For dsh-harness's own bin, which has no dsh mcp: the command is dsh-mcp's,
 * and dsh-harness does not depend on it. Says where it is instead of
 * "unknown command"; hidden, since this dsh cannot run it.
 */
export const mcpInAnotherPackage: CommandLineExtension = ({ program, action }) => {
  program.command('mcp', { hidden: true }).helpOption(false).allowUnknownOption().allowExcessArguments(true)
    .action(action(async () => {
      throw new UsageError('dsh mcp comes with the package dsh-mcp, which this dsh (the bin of dsh-harness alone) does not include: install dsh-cli (npm install -g dsh-cli), whose dsh has every command, or run the dsh of a project that depends on dsh-cli.')
    }))
}

/** The program; `run` receives each action's exit code; `extensions` add the commands of other packages. */
export function buildProgram(io: Output, run: (code: Promise<number>) => void, extensions: CommandLineExtension[] = []): Command {
  const program = new Command('dsh')
    .description('Boot a composition of Cordis plugins and use its tools (web_search, web_fetch, run_code)')
    .version(VERSION, '-V, --version', 'print the version of dsh-harness')
    .helpOption('-h, --help', 'show help for the command')
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: (text) => io.out(text.replace(/\n$/, '')), writeErr: () => {}, outputError: () => {} })
    .exitOverride()
    .addHelpText('after', `
Exit codes: 0 ok, 1 a failure (a row that did not start, a tool error, a failing check), 2 a usage error.
Run any command with --help for its options and examples. Logs go to stderr; stdout carries only output.`)
  program.configureHelp({ sortSubcommands: false })

  const action = (load: (opts: Record<string, any>, args: any[], command: Command) => Promise<number>) =>
    function (this: Command, ...args: any[]) {
      run(load(this.opts(), args.slice(0, -2), this))
    }

  withBootOptions(program.command('compose'))
    .description('the built composition: layers, rows, status, resolved config and where each value came from')
    .addHelpText('after', examples('dsh compose', 'dsh compose --preset standard --config my.cordis.yml --json'))
    .action(action(async (opts) => (await import('./commands.js')).runCompose(globals(opts), io)))

  withBootOptions(program.command('tools'))
    .description('the tool roster with descriptions, input schemas and what the network policy does to each')
    .addHelpText('after', examples('dsh tools', 'dsh tools --preset ptc --json'))
    .action(action(async (opts) => (await import('./commands.js')).runTools(globals(opts), io)))

  withBootOptions(program.command('call'))
    .description('invoke one tool as the model would; its error goes to stderr and exits 1')
    .argument('<tool>', 'the tool name (see dsh tools)')
    .argument('[input]', 'the input as a JSON object', '{}')
    .option('--session <id>', 'record the call in this session (created when missing)')
    .addHelpText('after', examples(`dsh call web_search '{"queries":["node lts"]}'`, `dsh call web_fetch '{"url":"https://example.com/"}' --preset standard --session my-session`))
    .action(action(async (opts, [tool, input]) => (await import('./commands.js')).runCall(globals(opts), tool, input, io)))

  const credentials = program.command('credentials').description('the credentials store: values are read from stdin, never from arguments')
  withBootOptions(credentials.command('set'))
    .description('store a credential; the value is read from stdin (not echoed on a terminal)')
    .argument('<name>', 'the credential name, e.g. DEEPSEEK_API_KEY')
    .allowExcessArguments(true)
    .addHelpText('after', examples('dsh credentials set DEEPSEEK_API_KEY', 'printf %s "$KEY" | dsh credentials set BRAVE_API_KEY'))
    .action(action(async (opts, [name], command) => (await import('./commands.js')).runCredentials(globals(opts), ['set', name, ...command.args.slice(1)], io)))
  withBootOptions(credentials.command('unset'))
    .description('remove a stored credential')
    .argument('<name>')
    .action(action(async (opts, [name]) => (await import('./commands.js')).runCredentials(globals(opts), ['unset', name], io)))
  withBootOptions(credentials.command('list'))
    .description('stored and referenced credential names (values redacted)')
    .action(action(async (opts) => (await import('./commands.js')).runCredentials(globals(opts), ['list'], io)))

  const session = program.command('session').description('the session logs under $DSH_HOME/sessions')
  withBootOptions(session.command('show'))
    .description("a session's events")
    .argument('<id>')
    .action(action(async (opts, [id]) => (await import('./commands.js')).runSessionShow(globals(opts), id, io)))
  withBootOptions(session.command('list'))
    .description('every session: id, started, events, size; newest last')
    .option('--token <name>', 'only the sessions of dsh mcp --http calls made with this token')
    .addHelpText('after', examples('dsh session list', 'dsh session list --token ci-agent --json'))
    .action(action(async (opts) => (await import('./session-command.js')).runSessionList(globals(opts), { token: opts.token }, io)))
  withBootOptions(session.command('prune'))
    .description('remove sessions whose last event is older than the age given; a session being written is kept')
    .requiredOption('--older-than <age>', 'an age: 30d, 12h, 90m')
    .option('--dry-run', 'say what would be removed, remove nothing')
    .addHelpText('after', examples('dsh session prune --older-than 30d --dry-run', 'dsh session prune --older-than 30d'))
    .action(action(async (opts) => (await import('./session-command.js')).runSessionPrune(globals(opts), { olderThan: opts.olderThan, dryRun: !!opts.dryRun }, io)))

  withBootOptions(program.command('search'))
    .description('web_search in the standard preset (the words form one query)')
    .argument('<query...>')
    .option('--session <id>', 'record the call in this session')
    .addHelpText('after', examples('dsh search node lts release', 'dsh search rust 2024 edition --json'))
    .action(action(async (opts, [words]) => (await import('./shortcuts.js')).runSearch(globals(opts), words, io)))

  withBootOptions(program.command('fetch'))
    .description('web_fetch in the standard preset')
    .argument('<url>')
    .addOption(new Option('--format <format>', 'what the page is converted to').choices(['markdown', 'text', 'html']))
    .option('--max-chars <n>', 'characters of text per page')
    .option('--offset <n>', 'character offset into the text, for the next page')
    .addOption(new Option('--extract <mode>', 'main content or the whole page').choices(['main', 'full']))
    .option('--find <phrase>', 'list where a phrase occurs (case and spacing ignored), with offsets, instead of the text')
    .option('--query <words>', 'the passages that share most words with these, best first, with the outline')
    .option('--pages <range>', 'of a PDF, only these pages: 5 or 3-5')
    .option('--session <id>', 'record the call in this session')
    .addHelpText('after', examples('dsh fetch https://example.com/ --max-chars 5000', 'dsh fetch https://example.com/guide --find "rate limit"', 'dsh fetch https://example.com/report.pdf --pages 3-5', 'dsh fetch http://wiki.internal/ --private-host wiki.internal --resolve wiki.internal:10.0.0.5'))
    .action(action(async (opts, [url]) => (await import('./shortcuts.js')).runFetch(globals(opts), url, { format: opts.format, maxChars: opts.maxChars, offset: opts.offset, extract: opts.extract, find: opts.find, query: opts.query, pages: opts.pages }, io)))

  withBootOptions(program.command('run-code'))
    .description('run_code in the ptc preset: a script that calls tools.web_search and tools.web_fetch')
    .argument('<file>', 'the script, or - to read it from stdin')
    .option('--session <id>', 'record the call in this session')
    .addHelpText('after', examples('dsh run-code script.js', `echo 'return await tools.web_search({ queries: ["x"] })' | dsh run-code -`))
    .action(action(async (opts, [file]) => (await import('./shortcuts.js')).runRunCode(globals(opts), file, io)))

  // Commands other packages add (dsh-mcp's dsh mcp, in dsh-cli's dsh), where dsh mcp has always stood in the help.
  for (const extend of extensions) extend({ program, io, action, withBootOptions, globals, examples, collect })

  const docs = program.command('docs').description('references generated from the code')
  docs.command('tools').description('the tools reference (docs/tools.md) from the registered schemas').argument('[file]', 'write it here instead of stdout').option('--config-dir <dir>', 'the folder holding base.cordis.yml')
    .action(action(async (opts, [file]) => (await import('./docs-command.js')).runDocs(globals(opts), 'tools', file, io)))
  docs.command('config').description("the config reference (docs/config.md) from every row's schema, and the environment variables").argument('[file]', 'write it here instead of stdout').option('--config-dir <dir>', 'the folder holding base.cordis.yml')
    .action(action(async (opts, [file]) => (await import('./docs-command.js')).runDocs(globals(opts), 'config', file, io)))

  withBootOptions(program.command('doctor'))
    .description('check the composition, providers, keys, base URLs, $DSH_HOME, proxy, Node, tools and the network policy; exit 1 when a check fails')
    .option('--self-test-fetch', 'also ask the fetch provider for a loopback server it must refuse')
    .option('--live', 'also make one real search with the selected search provider (paid where its API charges per search)')
    .option('--offline', "send nothing to any provider: no free check of the selected search provider's key, no --live search")
    .addHelpText('after', examples('dsh doctor', 'dsh doctor --config brave-search --json', 'dsh doctor --live'))
    .action(action(async (opts) => (await import('./doctor.js')).runDoctor({ ...globals(opts), selfTestFetch: !!opts.selfTestFetch, live: !!opts.live, offline: !!opts.offline }, io)))

  return program
}

/** Commander's own errors as usage errors, its "error: " prefix dropped, with the way to help. */
export function usageFromCommander(error: CommanderError, argv: string[]): UsageError {
  const text = error.message.replace(/^error: /, '').replace(/\n\(Did you mean (.+)\?\)$/, ' (did you mean $1?)')
  const command = argv.find((arg) => !arg.startsWith('-'))
  return new UsageError(`${text}\nRun dsh ${command && error.code !== 'commander.unknownCommand' ? `${command} ` : ''}--help for usage.`)
}

export { CommanderError }
