import { existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context, type ForkScope } from 'cordis'
import { defaultHome } from '../home.js'
import { CompositionError, type Layer, readLayer } from './composition-files.js'
import { type MergedRow, mergeLayers } from './merge-rows.js'
import { redactSecrets, resolvePluginConfig } from './plugin-config.js'

export interface ComposeOptions {
  /** Folder holding base.cordis.yml and presets/. Row names resolve from here. */
  configDir: string
  preset?: string
  /** `--config FILE` overlays, in order. */
  overlays?: string[]
  /** Where the personal overlay `cordis.yml` is looked for; `$DSH_HOME` else ~/.dsh. */
  home?: string
  /**
   * Operator settings from the command line, merged into named rows after
   * every layer (lists are appended to, other values replaced), then validated
   * like any config.
   */
  rowPatches?: Record<string, Record<string, unknown>>
}

export type RowStatus = 'mounted' | 'pending' | 'disabled' | 'failed'

export interface RowState {
  id: string
  name: string
  status: RowStatus
  /** The resolved config, defaults filled in, secrets redacted. */
  config: unknown
  configFrom: string
  nameFrom: string
  /** Services a pending row still waits for. */
  waitingFor?: string[]
  error?: string
}

export interface Composition {
  ctx: Context
  layers: string[]
  preset?: string
  rows(): RowState[]
  /** Rows that did not come up, in words: pending ones and failed ones. */
  problems(): string[]
  dispose(): Promise<void>
}

interface Prepared {
  row: MergedRow
  plugin?: any
  schema?: unknown
  config?: unknown
}

/** Lists the layer files for a preset and overlays, in the order they apply. */
export function layerFiles(options: ComposeOptions): string[] {
  const configDir = resolve(options.configDir)
  const files = [join(configDir, 'base.cordis.yml')]
  if (options.preset) {
    const presetFile = join(configDir, 'presets', `${options.preset}.cordis.yml`)
    if (!existsSync(presetFile)) {
      throw new CompositionError(`There is no preset "${options.preset}". Presets: ${listPresets(configDir).join(', ') || 'none'}.`)
    }
    files.push(presetFile)
  }
  const personal = join(options.home ?? defaultHome(), 'cordis.yml')
  if (existsSync(personal)) files.push(personal)
  for (const overlay of options.overlays ?? []) files.push(resolve(overlay))
  return files
}

export function listPresets(configDir: string): string[] {
  try {
    return readdirSync(join(configDir, 'presets'))
      .filter((file) => file.endsWith('.cordis.yml'))
      .map((file) => file.slice(0, -'.cordis.yml'.length))
      .sort()
  } catch {
    return []
  }
}

/**
 * Reads the layers, validates every row's config against its plugin before
 * anything is mounted, then mounts the enabled rows in one Cordis context.
 */
export async function compose(options: ComposeOptions): Promise<Composition> {
  const files = layerFiles(options)
  const layers: Layer[] = []
  for (const file of files) layers.push(await readLayer(file))
  const merged = mergeLayers(layers)
  for (const [id, patch] of Object.entries(options.rowPatches ?? {})) {
    const row = merged.find((item) => item.id === id)
    if (!row || row.disabled) throw new CompositionError(`The command line sets ${Object.keys(patch).join(', ')} on row "${id}", but the composition has no enabled row "${id}".`)
    row.config = applyPatch(row.config, patch)
  }
  const prepared: Prepared[] = []
  for (const row of merged) prepared.push(await prepareRow(row, resolve(options.configDir)))

  const ctx = new Context()
  const forks = new Map<string, ForkScope>()
  for (const item of prepared) {
    if (item.row.disabled) continue
    forks.set(item.row.id, ctx.plugin(item.plugin, item.config))
  }
  await ctx.start()
  await settle(ctx)

  const rows = (): RowState[] =>
    prepared.map(({ row, schema, config }) => {
      const base = {
        id: row.id,
        name: row.name,
        config: redactSecrets(schema as any, config ?? row.config),
        configFrom: row.configFrom,
        nameFrom: row.nameFrom,
      }
      const fork = forks.get(row.id)
      if (!fork) return { ...base, status: 'disabled' as const }
      const runtime = fork.runtime
      if (runtime.status === 3 || fork.status === 3) {
        const error = runtime.error ?? fork.error
        return { ...base, status: 'failed' as const, error: String(error?.message ?? error) }
      }
      if (runtime.status === 0 || fork.status === 0) {
        const waitingFor = Object.entries(runtime.inject ?? {})
          .filter(([service, meta]) => meta.required && ctx.get(service) === undefined)
          .map(([service]) => service)
        return { ...base, status: 'pending' as const, waitingFor }
      }
      return { ...base, status: 'mounted' as const }
    })

  return {
    ctx,
    layers: files,
    preset: options.preset,
    rows,
    problems: () =>
      rows().flatMap((row) =>
        row.status === 'pending'
          ? [`row "${row.id}" (${row.name}) is pending: it waits for the service(s) ${row.waitingFor?.join(', ') || '(unknown)'} that no mounted row provides`]
          : row.status === 'failed'
            ? [`row "${row.id}" (${row.name}) failed to start: ${row.error}`]
            : [],
      ),
    dispose: async () => {
      for (const fork of [...forks.values()].reverse()) fork.dispose()
      await settle(ctx)
      await ctx.stop()
    },
  }
}

function applyPatch(config: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const result = { ...config }
  for (const [key, value] of Object.entries(patch)) {
    const current = result[key]
    if (Array.isArray(value) && Array.isArray(current)) result[key] = [...current, ...value]
    else if (isPlainObject(value) && isPlainObject(current)) result[key] = { ...current, ...value }
    else result[key] = value
  }
  return result
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

async function prepareRow(row: MergedRow, configDir: string): Promise<Prepared> {
  const label = `${row.nameFrom}: row "${row.id}"`
  let module: any
  try {
    // A relative name is a file beside the layer that names it; a package name resolves from the config folder.
    const from = row.name.startsWith('.') ? [dirname(row.nameFrom)] : [configDir, dirname(row.nameFrom)]
    module = await import(pathToFileURL(resolvePackage(row.name, from)).href)
  } catch (error: any) {
    if (error instanceof CompositionError) throw new CompositionError(`${label}: ${error.message}`)
    throw new CompositionError(`${label}: the package "${row.name}" failed to load: ${error?.message ?? error}`)
  }
  const plugin = module.default && (typeof module.default === 'function' || typeof module.default.apply === 'function') ? module.default : module
  if (typeof plugin !== 'function' && typeof plugin?.apply !== 'function') {
    throw new CompositionError(`${label}: "${row.name}" is not a Cordis plugin (it exports neither a function nor apply).`)
  }
  const schema = plugin.Config ?? plugin.schema
  if (row.disabled) return { row, plugin, schema }
  const { config, problems } = resolvePluginConfig(schema, row.config)
  if (problems.length) {
    const swapped = row.nameFrom !== row.configFrom ? ` (${row.nameFrom} set the package to ${row.name}; this config came from ${row.configFrom}: give the row a config for the new package)` : ''
    throw new CompositionError(`${row.configFrom}: row "${row.id}" (${row.name}): ${problems.join('; ')}.${swapped}`)
  }
  return { row, plugin, schema, config }
}

function resolvePackage(name: string, from: string[]): string {
  for (const folder of from) {
    try {
      return createRequire(join(folder, '__composition__.js')).resolve(name)
    } catch (error: any) {
      if (error?.code !== 'MODULE_NOT_FOUND' && error?.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error
    }
  }
  throw new CompositionError(`the package "${name}" is not installed (looked from ${from.join(' and ')}). Install it, or fix the row's "name".`)
}

/** Lets Cordis finish the work that mounting queued (async applies, service hand-offs). */
async function settle(ctx: Context) {
  for (let round = 0; round < 3; round++) {
    await ctx.lifecycle.flush()
    await new Promise((resolve) => setImmediate(resolve))
  }
}
