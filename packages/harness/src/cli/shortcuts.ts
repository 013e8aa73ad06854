import { readFile } from 'node:fs/promises'
import { compose, type Composition } from '../compose/boot.js'
import type { SessionService } from '../session/index.js'
import type { ToolOutcome, ToolsService } from 'dsh-host'
import { findConfigDir, type GlobalOptions, type Output, printWarnings, UsageError } from './commands.js'
import { escapeForTerminal, renderForTerminal, startSpinner } from './terminal.js'

export interface FetchFlags {
  format?: string
  maxChars?: string
  offset?: string
  extract?: string
  privateHost: string[]
  resolve: string[]
}

/** The row the fetch shortcut hands operator settings to. */
const FETCH_ROW = 'web-fetch-http'

async function invokeInPreset(options: GlobalOptions, defaultPreset: string, tool: string, input: Record<string, unknown>, io: Output, rowPatches?: Record<string, Record<string, unknown>>): Promise<number> {
  const composition: Composition = await compose({
    configDir: findConfigDir(options.configDir),
    preset: options.preset ?? defaultPreset,
    overlays: options.config,
    rowPatches,
  })
  printWarnings(composition, io)
  const controller = new AbortController()
  const onSignal = () => controller.abort(new Error('Interrupted'))
  process.once('SIGINT', onSignal)
  const spinner = options.json ? undefined : startSpinner(`${tool}…`)
  try {
    const tools = composition.ctx.get('tools') as ToolsService | undefined
    const sessions = composition.ctx.get('session') as SessionService | undefined
    if (!tools || !sessions) throw new Error('The composition has no tools or session service; check its rows with dsh compose.')
    if (!tools.has(tool)) throw new Error(`The ${options.preset ?? defaultPreset} composition has no ${tool} tool; check its rows with dsh compose.`)
    const session = options.session ? await sessions.open(options.session, { create: true }) : await sessions.create()
    const outcome: ToolOutcome = await tools.invoke(tool, input, { session, signal: controller.signal })
    spinner?.stop()
    if (options.json) io.out(JSON.stringify({ session: session.id, ...outcome }, null, 2))
    else {
      io.out(process.stdout.isTTY ? renderForTerminal(outcome.content) : escapeForTerminal(outcome.content))
      io.err(`dsh: session ${session.id}`)
    }
    return outcome.isError ? 1 : 0
  } finally {
    spinner?.stop()
    process.off('SIGINT', onSignal)
    await composition.dispose()
  }
}

export function runSearch(options: GlobalOptions, words: string[], io: Output): Promise<number> {
  const query = words.join(' ').trim()
  if (!query) throw new UsageError('usage: dsh search QUERY...  (the words form one query)')
  return invokeInPreset(options, 'standard', 'web_search', { queries: [query] }, io)
}

export function runFetch(options: GlobalOptions, args: string[], flags: FetchFlags, io: Output): Promise<number> {
  if (args.length !== 1) throw new UsageError('usage: dsh fetch URL [--format markdown|text|html] [--max-chars N] [--offset N] [--extract main|full] [--private-host HOST_OR_CIDR]... [--resolve HOST:ADDRESS]...')
  const input: Record<string, unknown> = { url: args[0] }
  if (flags.format !== undefined) input.format = flags.format
  if (flags.extract !== undefined) input.extract = flags.extract
  if (flags.maxChars !== undefined) input.max_chars = integer('--max-chars', flags.maxChars)
  if (flags.offset !== undefined) input.offset = integer('--offset', flags.offset)
  const patch: Record<string, unknown> = {}
  if (flags.privateHost.length) patch.privateHosts = flags.privateHost
  if (flags.resolve.length) {
    patch.resolve = Object.fromEntries(flags.resolve.map((entry) => {
      const at = entry.indexOf(':')
      const host = entry.slice(0, at)
      const address = entry.slice(at + 1).replace(/^\[|\]$/g, '')
      if (at <= 0 || !address) throw new UsageError(`--resolve takes HOST:ADDRESS (like curl's), not "${entry}".`)
      return [host.toLowerCase(), address]
    }))
  }
  return invokeInPreset(options, 'standard', 'web_fetch', input, io, Object.keys(patch).length ? { [FETCH_ROW]: patch } : undefined)
}

export async function runRunCode(options: GlobalOptions, args: string[], io: Output): Promise<number> {
  if (args.length !== 1) throw new UsageError('usage: dsh run-code FILE|-  (- reads the code from stdin)')
  let code: string
  if (args[0] === '-') {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    code = Buffer.concat(chunks).toString('utf8')
  } else {
    try {
      code = await readFile(args[0], 'utf8')
    } catch (error: any) {
      throw new UsageError(`Cannot read ${args[0]}: ${error?.code ?? error?.message ?? error}`)
    }
  }
  return invokeInPreset(options, 'ptc', 'run_code', { code }, io)
}

function integer(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number, not "${text}".`)
  return Number(text)
}
