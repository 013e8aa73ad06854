import { format } from 'node:util'
import type { Output } from './commands.js'
import { errorDocument, errorMessage, exitCodeOf, EXIT_USAGE, RowsFailedError, UsageError } from './errors.js'
import { buildProgram, type CommandLineExtension, CommanderError, usageFromCommander } from './program.js'
import { escapeForTerminal } from './terminal.js'

/**
 * Runs `dsh` with this process's arguments: the harness's commands and those
 * `extensions` add (dsh-cli's dsh adds dsh-mcp's), then exits with the
 * command's code. Both bins (dsh-harness's and dsh-cli's) are this call.
 */
export function runCommandLine(extensions: CommandLineExtension[] = []): void {
  // stdout carries only command output (one JSON document with --json, protocol
  // messages under dsh mcp): what plugins print with console.log goes to stderr.
  const toStderr = (...args: unknown[]) => void process.stderr.write(escapeForTerminal(format(...args)) + '\n')
  console.log = toStderr
  console.info = toStderr
  console.debug = toStderr

  const io: Output = {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
    // Messages quote errors, which may quote a page or a provider: never raw control characters on stderr.
    err: (text) => process.stderr.write(escapeForTerminal(text.endsWith('\n') ? text : text + '\n')),
  }

  const argv = process.argv.slice(2)
  /** --json anywhere before `--`: then even a usage error is one JSON document on stdout. */
  const json = argv.slice(0, argv.indexOf('--') === -1 ? undefined : argv.indexOf('--')).includes('--json')

  function fail(error: unknown): void {
    if (json) io.out(errorDocument(error))
    else if (error instanceof RowsFailedError) io.err(`dsh: ${error.lines.length === 1 ? 'a row' : `${error.lines.length} rows`} did not start (pass --allow-failed-rows to go on without them):\n${error.lines.map((line) => `dsh: ${line}`).join('\n')}`)
    else io.err(`dsh: ${errorMessage(error)}`)
    finish(exitCodeOf(error))
  }

  /** Exits once stdout has drained, even if a plugin left a handle open. */
  function finish(code: number): void {
    process.exitCode = code
    process.stdout.write('', () => process.exit(code))
  }

  let ran = false
  const program = buildProgram(io, (result) => {
    ran = true
    result.then(finish, fail)
  }, extensions)

  if (!argv.length) {
    io.err(program.helpInformation())
    finish(EXIT_USAGE)
  } else {
    try {
      program.parse(argv, { from: 'user' })
      if (!ran) finish(0)
    } catch (error) {
      if (error instanceof CommanderError) {
        if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') finish(0)
        else fail(usageFromCommander(error, argv))
      } else fail(error instanceof UsageError ? error : error)
    }
  }
}

export type { CommandLineExtension, CommandLineKit } from './program.js'
export type { GlobalOptions, Output } from './commands.js'
export { UsageError } from './errors.js'
export { escapeForTerminal } from './terminal.js'
export { parseLifetime } from './lifetime.js'
