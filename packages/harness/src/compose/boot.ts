import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as cordis from 'cordis'
import { Context, type ForkScope, type Schema } from 'cordis'
import { UnsafePathError } from 'dsh-host'
import { assertPrivateFile, assertPrivateHome } from '../private-home.js'
import { defaultHome } from '../home.js'
import { harnessPackageDir } from '../package-root.js'
import { shippedConfigDir } from './config-dir.js'
import { type EffectiveProxy, effectiveProxy, overriddenProxyWarnings, takesProxy } from './row-proxy.js'
import { CompositionError, type Layer, readLayer } from './composition-files.js'
import { LayerCache } from './layer-cache.js'
import { configSources, replacementWarnings } from './config-sources.js'
import { type MergedRow, mergeLayers } from './merge-rows.js'
import { isSchema, redactSecrets, resolvePluginConfig } from './plugin-config.js'

/**
 * Cordis's exported `ScopeStatus`. Its `.d.ts` declares a const enum, which
 * `verbatimModuleSyntax` may not inline, so the exported object is read by name.
 */
const ScopeStatus = (cordis as unknown as { ScopeStatus: Record<'PENDING' | 'LOADING' | 'ACTIVE' | 'FAILED' | 'DISPOSED', number> }).ScopeStatus
if (typeof ScopeStatus?.PENDING !== 'number') throw new Error('This cordis exports no ScopeStatus; dsh-harness needs cordis ^3.18.')

export interface ComposeOptions {
  /**
   * Folder holding base.cordis.yml and presets/; default the one shipped in
   * dsh-harness. Row names resolve from here, then from where dsh-harness is
   * installed.
   */
  configDir?: string
  preset?: string
  /** `--config FILE` overlays, in order. */
  overlays?: string[]
  /** Where the personal overlay `cordis.yml` is looked for; `$DSH_HOME` else ~/.dsh. */
  home?: string
  /**
   * Operator settings from the command line, merged after every layer into
   * every enabled row that mounts one of `packages` (the fetch providers take
   * --private-host and --resolve, whichever rows mount them; lists are
   * appended to, other values replaced), then validated like any config. A
   * composition with no such row is an error naming them.
   */
  packagePatches?: { packages: string[]; patch: Record<string, unknown> }
  /** How long the rows may take to start (every apply and ready hook). Default 30 s. */
  startTimeoutMs?: number
  /**
   * How long, once every row has started, a row that waits for a service may
   * still get it from work Cordis does not track (a timer, an unawaited
   * promise). Status events end the wait early. Default 250 ms.
   */
  serviceWaitMs?: number
}

/** `starting`: the row's start had not finished by `startTimeoutMs`. */
export type RowStatus = 'mounted' | 'pending' | 'starting' | 'disabled' | 'failed'

export interface RowState {
  id: string
  name: string
  status: RowStatus
  /** The resolved config, defaults filled in, secrets redacted. */
  config: unknown
  /** For each top-level key of `config`: the file that set it, `command line`, or `plugin default`. */
  configSources: Record<string, string>
  configFrom: string
  nameFrom: string
  /** For a row that takes a `proxy` section: the proxy its requests take, credentials hidden. */
  proxy?: EffectiveProxy
  /** Services a pending row still waits for. */
  waitingFor?: string[]
  error?: string
}

export interface Composition {
  ctx: Context
  layers: string[]
  preset?: string
  rows(): RowState[]
  /** Rows that did not come up, in words: pending, still starting and failed ones. */
  problems(): string[]
  /**
   * Config a layer changed without saying so: a layer that replaces a row's
   * config whole sends the keys it leaves out back to the plugin's defaults.
   * One line per such layer and row, naming the keys, old and new values and
   * the file to edit; secrets redacted.
   */
  warnings: string[]
  dispose(): Promise<void>
}

interface Prepared {
  row: MergedRow
  plugin?: any
  schema?: Schema
  config?: unknown
}

/** Lists the layer files for a preset and overlays, in the order they apply. */
export function layerFiles(options: ComposeOptions): string[] {
  const configDir = resolve(options.configDir ?? shippedConfigDir())
  const files = [join(configDir, 'base.cordis.yml')]
  if (options.preset !== undefined) {
    // A preset is a name among the shipped ones, never a path.
    const presets = listPresets(configDir)
    if (!presets.includes(options.preset)) {
      const near = closestName(options.preset, presets)
      throw new CompositionError(
        `There is no preset "${options.preset}"${near ? ` (did you mean ${near}?)` : ''}: --preset takes the name of a shipped preset (${presets.join(', ') || 'none'}); for a file of your own use --config FILE.`,
        { usage: true },
      )
    }
    files.push(join(configDir, 'presets', `${options.preset}.cordis.yml`))
  }
  const personal = join(options.home ?? defaultHome(), 'cordis.yml')
  if (existsSync(personal)) files.push(personal)
  for (const overlay of options.overlays ?? []) {
    if (isOverlayName(overlay)) {
      files.push(shippedOverlay(configDir, overlay))
      continue
    }
    const file = resolve(overlay)
    assertRegularFile(file, '--config')
    files.push(file)
  }
  return files
}

async function assertPersonalOverlay(home: string, file: string): Promise<void> {
  try {
    await assertPrivateHome(home)
    await assertPrivateFile(file, 'The personal overlay')
  } catch (error) {
    if (UnsafePathError.is(error)) throw new CompositionError(error.message)
    throw error
  }
}

/** A layer must be a regular file: a FIFO would hang the read, a device or a folder makes no sense. */
function assertRegularFile(file: string, what: string): void {
  let info
  try {
    info = statSync(file)
  } catch (error: any) {
    throw new CompositionError(`${what} ${file}: cannot read the composition file (${error?.code ?? error?.message ?? error}).`)
  }
  if (info.isFile()) return
  const kind = info.isFIFO() ? 'a FIFO' : info.isDirectory() ? 'a folder' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : info.isSocket() ? 'a socket' : 'not a regular file'
  throw new CompositionError(`${what} ${file} is ${kind}; a composition file must be a regular file.`)
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

/** The overlays a config folder ships (`overlays/NAME.cordis.yml`), by name: what `--config NAME` picks. */
export function listOverlays(configDir: string): string[] {
  const dir = join(configDir, 'overlays')
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter((name) => name.endsWith('.cordis.yml')).map((name) => name.slice(0, -'.cordis.yml'.length)).sort()
}

/**
 * A `--config` value that is a bare name (letters, digits and dashes: no
 * path separator, no dot) names a shipped overlay; anything else is a file.
 * So `--config brave-search` works from any folder, and `--config
 * ./brave-search.cordis.yml` is always the file.
 */
export function isOverlayName(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9-]*$/.test(value)
}

/**
 * Reads the layers, validates every row's config against its plugin before
 * anything is mounted, then mounts the enabled rows in one Cordis context.
 */
export async function compose(options: ComposeOptions): Promise<Composition> {
  const files = layerFiles(options)
  const home = options.home ?? defaultHome()
  const personal = join(home, 'cordis.yml')
  const layers: Layer[] = []
  const cache = await LayerCache.open(home)
  for (const file of files) {
    // The personal overlay decides what runs with the operator's keys: it and its folder must be the operator's alone, as ssh demands of its keys.
    if (file === personal) await assertPersonalOverlay(home, personal)
    layers.push(await readLayer(file, cache))
  }
  await cache.save()
  const merged = mergeLayers(layers)
  const patchedRows = new Map<string, Record<string, unknown>>()
  if (options.packagePatches) {
    const { packages, patch } = options.packagePatches
    const rows = merged.filter((item) => !item.disabled && packages.includes(item.name))
    if (!rows.length) throw new CompositionError(`The command line sets ${Object.keys(patch).join(', ')} on the rows of ${packages.join(' and ')}, but the composition has no enabled row of ${packages.length === 1 ? 'it' : 'either'}.`)
    for (const row of rows) {
      row.config = applyPatch(row.config, patch)
      patchedRows.set(row.id, patch)
    }
  }
  const prepared: Prepared[] = []
  const configDir = resolve(options.configDir ?? shippedConfigDir())
  const resolveFrom = [...new Set([configDir, harnessPackageDir()])]
  for (const row of merged) prepared.push(await prepareRow(row, resolveFrom))
  const patchedKeys = (id: string) => new Set(Object.keys(patchedRows.get(id) ?? {}))
  const warnings = [
    ...prepared.flatMap(({ row, schema }) => (row.disabled || !schema ? [] : replacementWarnings(row, schema, patchedKeys(row.id)))),
    ...prepared.flatMap(({ row, schema, config }) => (row.disabled || !takesProxy(schema) ? [] : overriddenProxyWarnings(row.id, config))),
  ]

  const ctx = new Context()
  const forks = new Map<string, ForkScope>()
  for (const item of prepared) {
    if (item.row.disabled) continue
    forks.set(item.row.id, ctx.plugin(item.plugin, item.config))
  }
  const startTimeoutMs = options.startTimeoutMs ?? 30_000
  await startRows(ctx, [...forks.values()], startTimeoutMs, options.serviceWaitMs ?? 250)

  const rows = (): RowState[] =>
    prepared.map(({ row, schema, config }) => {
      const base = {
        id: row.id,
        name: row.name,
        // A disabled row is not loaded, so its schema (and which keys are secret) is unknown: its config is not shown.
        config: row.disabled ? null : redactSecrets(schema, config ?? row.config),
        configSources: configSources(row, config ?? row.config, patchedKeys(row.id)),
        configFrom: row.configFrom,
        nameFrom: row.nameFrom,
        ...(!row.disabled && takesProxy(schema) ? { proxy: effectiveProxy(config) } : {}),
      }
      const fork = forks.get(row.id)
      if (!fork) return { ...base, status: 'disabled' as const }
      const runtime = fork.runtime
      if (hasStatus(fork, ScopeStatus.FAILED)) {
        const error = runtime.error ?? fork.error
        return { ...base, status: 'failed' as const, error: String(error?.message ?? error) }
      }
      if (hasStatus(fork, ScopeStatus.PENDING)) {
        const waitingFor = Object.entries(runtime.inject ?? {})
          .filter(([service, meta]) => meta.required && fork.ctx.get(service) === undefined)
          .map(([service]) => service)
        return { ...base, status: 'pending' as const, waitingFor }
      }
      if (hasStatus(fork, ScopeStatus.LOADING)) return { ...base, status: 'starting' as const }
      // A plugin that waits for its services inside (dsh-host's startWhenProvided) says what it still waits for.
      const plugin = runtime.plugin as { waitingFor?: (ctx: unknown) => unknown } | undefined
      const inside = typeof plugin?.waitingFor === 'function' ? plugin.waitingFor(runtime.ctx) : []
      if (Array.isArray(inside) && inside.length) return { ...base, status: 'pending' as const, waitingFor: inside.map(String) }
      return { ...base, status: 'mounted' as const }
    })

  return {
    ctx,
    layers: files,
    preset: options.preset,
    rows,
    warnings,
    problems: () =>
      rows().flatMap((row) =>
        row.status === 'pending'
          ? [`row "${row.id}" (${row.name}) is pending: it waits for the service(s) ${row.waitingFor?.join(', ') || '(unknown)'} that no mounted row provides`]
          : row.status === 'starting'
            ? [`row "${row.id}" (${row.name}) is still starting after ${startTimeoutMs} ms: its apply or a ready hook has not finished`]
            : row.status === 'failed'
              ? [`row "${row.id}" (${row.name}) failed to start: ${row.error}`]
              : [],
      ),
    dispose: async () => {
      for (const fork of [...forks.values()].reverse()) fork.dispose()
      await ctx.stop()
    },
  }
}

/** A row's status is its fork's, or its plugin's (where apply runs) when that one says more. */
function hasStatus(fork: ForkScope, status: number): boolean {
  return fork.status === status || fork.runtime.status === status
}

/**
 * Starts the context and waits for the rows to come up: until Cordis has no
 * work left (`ctx.start()` resolves once every apply and ready hook has
 * finished) or `startTimeoutMs` passes. A row then still waiting for a service
 * gets `serviceWaitMs` more for it, ended early by the `internal/status` events
 * that say it is no longer waiting; its own start then gets what is left of
 * `startTimeoutMs`.
 */
async function startRows(ctx: Context, scopes: ForkScope[], startTimeoutMs: number, serviceWaitMs: number): Promise<void> {
  const deadline = Date.now() + startTimeoutMs
  if (!(await within(ctx.start(), startTimeoutMs))) return
  const waiting = (scope: ForkScope) => hasStatus(scope, ScopeStatus.PENDING)
  if (!scopes.some(waiting)) return
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      stopListening()
      resolve()
    }
    const timer = setTimeout(done, serviceWaitMs)
    const stopListening = ctx.on('internal/status', () => {
      if (!scopes.some(waiting)) done()
    })
  })
  await within(ctx.lifecycle.flush(), deadline - Date.now())
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))))
  try {
    return await Promise.race([promise.then(() => true), timeout])
  } finally {
    clearTimeout(timer)
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

/**
 * What a row's `name` may be: an npm package name, optionally with a subpath
 * of its exports (`dsh-harness/tools`, `@scope/pkg/sub`). Never a file path:
 * a composition file is data, and what it mounts is what is installed.
 */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/

function assertPackageName(row: MergedRow, label: string): void {
  if (PACKAGE_NAME.test(row.name) && !row.name.split('/').includes('..')) return
  throw new CompositionError(
    `${label}: "${row.name}" is not a package name. A row names an installed package (like dsh-web-fetch-http or dsh-harness/tools), never a file: ` +
      'install the plugin as a package (npm install, or a workspace package) and name it.',
  )
}

async function prepareRow(row: MergedRow, resolveFrom: string[]): Promise<Prepared> {
  const label = `${row.nameFrom}: row "${row.id}"`
  assertPackageName(row, label)
  // A disabled row is never imported: nothing of it runs.
  if (row.disabled) return { row }
  let module: any
  try {
    // Resolved from the installation (the config folder's node_modules chain, then dsh-harness's), never beside a layer file.
    module = await import(pathToFileURL(resolvePackage(row.name, resolveFrom)).href)
  } catch (error: any) {
    if (error instanceof CompositionError) throw new CompositionError(`${label}: ${error.message}`)
    throw new CompositionError(`${label}: the package "${row.name}" failed to load: ${error?.message ?? error}`)
  }
  const plugin = module.default && (typeof module.default === 'function' || typeof module.default.apply === 'function') ? module.default : module
  if (typeof plugin !== 'function' && typeof plugin?.apply !== 'function') {
    throw new CompositionError(`${label}: "${row.name}" is not a Cordis plugin (it exports neither a function nor apply).`)
  }
  const declared: unknown = plugin.Config ?? plugin.schema
  const schema = isSchema(declared) ? declared : undefined
  const { config, problems } = resolvePluginConfig(declared, row.config)
  if (problems.length) {
    // Only when the config was written for another package: a layer that restates the same name changes nothing.
    const swapped = row.configName !== row.name ? ` (${row.nameFrom} set the package to ${row.name}; this config came from ${row.configFrom}, written for ${row.configName}: give the row a config for the new package)` : ''
    throw new CompositionError(`${row.configFrom}: row "${row.id}" (${row.name}): ${problems.join('; ')}.${swapped}`)
  }
  return { row, plugin, schema, config }
}

export function resolvePackage(name: string, from: string[]): string {
  for (const folder of from) {
    try {
      return createRequire(join(folder, '__composition__.js')).resolve(name)
    } catch (error: any) {
      if (error?.code !== 'MODULE_NOT_FOUND' && error?.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error
    }
  }
  throw new CompositionError(
    `the package "${name}" is not installed (looked from ${from.join(' and ')}). Install it where these folders find it ` +
      `(npm install ${name.split('/').slice(0, name.startsWith('@') ? 2 : 1).join('/')} in your config folder, or npm install -g beside a global dsh), or fix the row's "name". ` +
      'The package dsh-cli installs dsh with every plugin the shipped compositions name.',
  )
}

/** The file of a shipped overlay named by `--config NAME`, or a usage error listing the names there are. */
function shippedOverlay(configDir: string, name: string): string {
  const overlays = listOverlays(configDir)
  if (overlays.includes(name)) return join(configDir, 'overlays', `${name}.cordis.yml`)
  const near = closestName(name, overlays)
  throw new CompositionError(
    `There is no shipped overlay "${name}"${near ? ` (did you mean ${near}?)` : ''}: --config NAME takes one of ${overlays.join(', ') || 'none'}; ` +
      `for a file of your own give its path (./${name}.cordis.yml).`,
    { usage: true },
  )
}

/** The name within two edits of `given` (a typo), when exactly one is nearest. */
function closestName(given: string, names: string[]): string | undefined {
  const scored = names.map((name) => ({ name, distance: editDistance(given.toLowerCase(), name.toLowerCase()) })).filter((entry) => entry.distance <= 2)
  scored.sort((a, b) => a.distance - b.distance)
  return scored.length && (scored.length === 1 || scored[0]!.distance < scored[1]!.distance) ? scored[0]!.name : undefined
}

/** Levenshtein distance; the names are short (a preset's). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = current
  }
  return previous[b.length]!
}
