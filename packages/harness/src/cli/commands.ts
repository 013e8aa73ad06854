import { compose, type Composition } from '../compose/boot.js'
import { findConfigDir } from '../compose/config-dir.js'
import { defaultHome } from '../home.js'
import type { CredentialsService } from '../credentials/index.js'
import type { SessionService } from '../session/index.js'
import type { ToolsService } from '../tools/index.js'
import { readSecret } from './read-secret.js'
import { renderCredentials, renderEvents, renderOutcome, renderRows, renderTools } from './render.js'

export class UsageError extends Error {}

export interface GlobalOptions {
  preset?: string
  config: string[]
  configDir?: string
  json: boolean
  session?: string
}

export interface Output {
  out(text: string): void
  err(text: string): void
}

export { findConfigDir } from '../compose/config-dir.js'

async function boot(options: GlobalOptions, io: Output): Promise<Composition> {
  const composition = await compose({ configDir: findConfigDir(options.configDir), preset: options.preset, overlays: options.config })
  printWarnings(composition, io)
  return composition
}

/** On stderr: config a layer changed without saying so, then rows that did not come up. */
export function printWarnings(composition: Composition, io: Output, prefix = 'dsh'): void {
  for (const warning of composition.warnings) io.err(`${prefix}: warning: ${warning}`)
  for (const problem of composition.problems()) io.err(`${prefix}: warning: ${problem}`)
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
    io.out(options.json ? json({ preset: options.preset ?? null, tools }) : renderTools(tools))
    return 0
  } finally {
    await composition.dispose()
  }
}

export async function runCall(options: GlobalOptions, args: string[], io: Output): Promise<number> {
  const [tool, inputText = '{}'] = args
  if (!tool || args.length > 2) throw new UsageError("usage: dsh call TOOL 'JSON' [--session ID]")
  let input: unknown
  try {
    input = JSON.parse(inputText)
  } catch (error: any) {
    throw new UsageError(`The tool input is not valid JSON: ${error?.message ?? error}`)
  }
  const composition = await boot(options, io)
  const controller = new AbortController()
  const onSignal = () => controller.abort(new Error('Interrupted'))
  process.once('SIGINT', onSignal)
  try {
    const tools = service<ToolsService>(composition, 'tools')
    const sessions = service<SessionService>(composition, 'session')
    const session = options.session ? await sessions.open(options.session, { create: true }) : await sessions.create()
    const outcome = await tools.invoke(tool, input, { session, signal: controller.signal })
    if (options.json) io.out(json({ session: session.id, ...outcome }))
    else {
      io.out(renderOutcome(outcome))
      io.err(`dsh: session ${session.id}`)
    }
    return outcome.isError ? 1 : 0
  } finally {
    process.off('SIGINT', onSignal)
    await composition.dispose()
  }
}

export async function runCredentials(options: GlobalOptions, args: string[], io: Output): Promise<number> {
  const [action, name, ...rest] = args
  if (rest.length) throw new UsageError('usage: dsh credentials set NAME | unset NAME | list [--json]  (values are read from stdin, never from arguments)')
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
        const list = await credentials.list(referencedCredentials(composition))
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

/** Credential names the mounted rows point at (config keys ending in `KeyEnv`). */
function referencedCredentials(composition: Composition): string[] {
  const names = new Set<string>()
  for (const row of composition.rows()) {
    if (row.status === 'disabled' || typeof row.config !== 'object' || row.config === null) continue
    for (const [key, value] of Object.entries(row.config)) {
      if (/KeyEnv$/.test(key) && typeof value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) names.add(value)
    }
  }
  return [...names]
}

export async function runSession(options: GlobalOptions, args: string[], io: Output): Promise<number> {
  const [action, id, ...rest] = args
  if (action !== 'show' || !id || rest.length) throw new UsageError('usage: dsh session show ID [--json]')
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
