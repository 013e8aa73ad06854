#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { Logger } from 'cordis'
import { type GlobalOptions, type Output, runCall, runCompose, runCredentials, runSession, runTools, UsageError } from './cli/commands.js'

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

options (every command that boots a composition):
  --preset NAME        add config/presets/NAME.cordis.yml
  --config FILE        add an overlay (repeatable, applied in order)
  --config-dir DIR     the folder holding base.cordis.yml (default ./config)
  --json               print exactly one JSON document on stdout
`

// Logs (Cordis and plugins) go to stderr; stdout carries only command output.
for (const target of Logger.targets) target.print = (text: string) => process.stderr.write(text + '\n')

async function main(argv: string[], io: Output): Promise<number> {
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
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (error: any) {
    throw new UsageError(`${error?.message ?? error}\nRun dsh --help for usage.`)
  }
  const { values, positionals } = parsed
  const [command, ...args] = positionals
  if (values.help || !command) {
    io.out(HELP)
    return command || values.help ? 0 : 2
  }
  const options: GlobalOptions = {
    preset: values.preset,
    config: values.config ?? [],
    configDir: values['config-dir'],
    json: !!values.json,
    session: values.session,
  }
  if (options.session && command !== 'call') throw new UsageError('--session goes with dsh call.')
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
    default:
      throw new UsageError(`Unknown command "${command}". Run dsh --help for usage.`)
  }
}

const io: Output = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : text + '\n'),
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
