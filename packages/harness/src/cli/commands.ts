import { compose, type Composition } from '../compose/boot.js'
import { findConfigDir } from '../compose/config-dir.js'
import { defaultHome } from '../home.js'
import { type CredentialsService, credentialReferences } from '../credentials/index.js'
import type { SessionService } from '../session/index.js'
import type { ToolsService } from '../tools/index.js'
import { RowsFailedError, UsageError } from './errors.js'
import { routeLogsToStderr, withoutStartErrors } from './log-routing.js'
import { type OperatorFlags, operatorPatches } from './operator-flags.js'
import { readSecret } from './read-secret.js'
import { renderCredentials, renderEvents, renderOutcome, renderRows, renderTools } from './render.js'
import { startProgress } from './progress.js'
import { retryNotice } from './retry-notice.js'
import type { ToolInfo, ToolOutcome } from 'dsh-host'
import { failedRowLines } from './row-failures.js'
import { toolsWithoutProvider } from './tool-providers.js'

export { UsageError }

export interface GlobalOptions extends OperatorFlags {
  preset?: string
  config: string[]
  configDir?: string
  json: boolean
  session?: string
  /** Run with the rows that did not start, instead of stopping. */
  allowFailedRows: boolean
}

export interface Output {
  out(text: string): void
  err(text: string): void
}

export { findConfigDir } from '../compose/config-dir.js'

/**
 * Boots the composition of the command line (preset, overlays, operator
 * flags) and stops, with one line per row, when a row did not start, unless
 * --allow-failed-rows says to go on; then those lines are warnings.
 */
export async function boot(options: GlobalOptions, io: Output, settings: { defaultPreset?: string; prefix?: string } = {}): Promise<Composition> {
  routeLogsToStderr()
  const prefix = settings.prefix ?? 'dsh'
  const composition = await withoutStartErrors(() =>
    compose({ configDir: findConfigDir(options.configDir), preset: options.preset ?? settings.defaultPreset, overlays: options.config, packagePatches: operatorPatches(options) }),
  )
  for (const warning of composition.warnings) io.err(`${prefix}: warning: ${warning}`)
  const failed = failedRowLines(composition)
  if (failed.length && !options.allowFailedRows) {
    await composition.dispose()
    throw new RowsFailedError(failed)
  }
  for (const line of failed) io.err(`${prefix}: warning (--allow-failed-rows): ${line}`)
  return composition
}

function service<T>(composition: Composition, name: string): T {
  const found = composition.ctx.get(name) as T | undefined
  if (!found) {
    const row = composition.rows().find((item) => item.status !== 'disabled' && item.name.endsWith(`/${name}`))
    throw new Error(`The composition provides no "${name}" service${row ? ` (row "${row.id}" is ${row.status})` : ''}; mount its row to use this command.`)
  }
  return found
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2)
}

export async function runCompose(options: GlobalOptions, io: Output): Promise<number> {
  const composition = await boot(options, io)
  try {
    const rows = composition.rows()
    const problems = composition.problems()
    if (options.json) {
      io.out(json({ preset: options.preset ?? null, layers: composition.layers, home: defaultHome(), rows, problems, warnings: composition.warnings }))
    } else {
      io.out(renderRows(rows, composition.layers, problems))
    }
    return 0
  } finally {
    await composition.dispose()
  }
}

export async function runTools(options: GlobalOptions, io: Output): Promise<number> {
  const composition = await boot(options, io)
  try {
    const tools = composition.ctx.get('tools') ? service<ToolsService>(composition, 'tools').roster() : []
    // What the network policy does to each tool, when it does anything (deny, an allowlist).
    const network = composition.ctx.get('network') as { effectOn?(tool: ToolInfo): string | undefined } | undefined
    // And a tool whose provider is missing (dsh mcp does not serve it).
    const missing = toolsWithoutProvider(composition)
    const listed = tools.map((tool) => {
      const effect = network?.effectOn?.(tool)
      const unavailable = missing.get(tool.name)
      return { ...tool, ...(effect ? { networkPolicy: effect } : {}), ...(unavailable ? { unavailable } : {}) }
    })
    io.out(options.json ? json({ preset: options.preset ?? null, tools: listed }) : renderTools(listed))
    return 0
  } finally {
    await composition.dispose()
  }
}

export async function runCall(options: GlobalOptions, tool: string, inputText: string | undefined, io: Output): Promise<number> {
  let input: unknown
  try {
    input = JSON.parse(inputText ?? '{}')
  } catch (error: any) {
    throw new UsageError(`The tool input is not valid JSON: ${error?.message ?? error}`)
  }
  const composition = await boot(options, io)
  try {
    return await invokeTool(composition, options, tool, input, io)
  } finally {
    await composition.dispose()
  }
}

/**
 * Invokes one tool as the model would, in a new session or --session's. A
 * progress line on stderr while it runs (with every provider retry and its
 * reason); the outcome on stdout, or, when the tool failed, its error on
 * stderr (with --json the outcome is the one document either way). Exit 1 when
 * the tool failed.
 */
export async function invokeTool(composition: Composition, options: GlobalOptions, tool: string, input: unknown, io: Output): Promise<number> {
  const tools = service<ToolsService>(composition, 'tools')
  const sessions = service<SessionService>(composition, 'session')
  const session = options.session ? await sessions.open(options.session, { create: true }) : await sessions.create()
  // What the operator typed is the user's: the URLs in it (dsh fetch URL, dsh call's input, run-code's code) pass web_fetch's provenance gate.
  session.seenUrls?.declareUserUrls(JSON.stringify(input) ?? '')
  const controller = new AbortController()
  const onSignal = () => controller.abort(new Error('Interrupted'))
  process.once('SIGINT', onSignal)
  const progress = startProgress(`${tool}…`)
  const stopListening = composition.ctx.on('session/event-append', (id, event) => {
    const notice = id === session.id ? retryNotice(event) : undefined
    if (notice) progress.retry(notice)
  })
  let outcome: ToolOutcome
  try {
    outcome = await tools.invoke(tool, input, { session, signal: controller.signal })
  } finally {
    stopListening()
    progress.stop()
    process.off('SIGINT', onSignal)
  }
  if (options.json) io.out(json({ session: session.id, ...outcome }))
  else if (outcome.isError) {
    // A failure whose text holds more than its error (a 404's page, with its status) shows that text, then says it failed.
    if (outcome.error && outcome.content !== `Error [${outcome.error.code}]: ${outcome.error.message}`) io.out(renderOutcome(outcome.content))
    io.err(`dsh: ${tool} failed: ${outcome.error ? `${outcome.error.code}: ${outcome.error.message}` : outcome.content}`)
  } else io.out(renderOutcome(outcome.content))
  if (!options.json) io.err(`dsh: session ${session.id}`)
  return outcome.isError ? 1 : 0
}

export async function runCredentials(options: GlobalOptions, args: string[], io: Output): Promise<number> {
  const [action, name, ...rest] = args
  if (rest.length) throw new UsageError('usage: dsh credentials set NAME | unset NAME | list [--json]  (values are read from stdin, never from arguments)')
  if (action !== 'list' && !name) throw new UsageError(`usage: dsh credentials ${action} NAME${action === 'set' ? '  (the value is read from stdin)' : ''}`)
  const composition = await boot(options, io)
  try {
    const credentials = service<CredentialsService>(composition, 'credentials')
    switch (action) {
      case 'set': {
        if (!name) throw new UsageError('usage: dsh credentials set NAME  (the value is read from stdin)')
        const value = await readSecret(`Value for ${name} (not echoed): `)
        await credentials.set(name, value)
        const description = await credentials.describe(name)
        if (options.json) io.out(json(description))
        else io.out(`Stored ${name}.${description.source === 'environment' ? ` Note: the environment variable ${name} is set and wins over the store.` : ''}`)
        return 0
      }
      case 'unset': {
        if (!name) throw new UsageError('usage: dsh credentials unset NAME')
        const removed = await credentials.unset(name)
        const description = await credentials.describe(name)
        if (options.json) io.out(json({ ...description, removed }))
        else io.out(removed ? `Removed ${name} from the store.${description.configured ? ` It is still set in the environment.` : ''}` : `${name} was not in the store; nothing changed.`)
        return 0
      }
      case 'list': {
        if (name) throw new UsageError('usage: dsh credentials list [--json]')
        const list = await credentials.list(credentialReferences(composition.rows()))
        io.out(options.json ? json({ credentials: list }) : renderCredentials(list))
        return 0
      }
      default:
        throw new UsageError('usage: dsh credentials set NAME | unset NAME | list [--json]')
    }
  } finally {
    await composition.dispose()
  }
}

export async function runSessionShow(options: GlobalOptions, id: string, io: Output): Promise<number> {
  const composition = await boot(options, io)
  try {
    const { events, problems } = await service<SessionService>(composition, 'session').inspect(id)
    for (const problem of problems) io.err(`dsh: warning: session ${id}: ${problem.message}`)
    io.out(options.json ? json({ id, events, problems }) : renderEvents(events))
    return 0
  } finally {
    await composition.dispose()
  }
}
