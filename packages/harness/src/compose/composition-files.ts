import { readFile } from 'node:fs/promises'
import { type LayerCache } from './layer-cache.js'

/** A row as written in a composition file. */
export interface RowSpec {
  id: string
  name?: string
  config?: Record<string, unknown>
  disabled?: boolean
}

export interface Layer {
  file: string
  rows: RowSpec[]
}

const ROW_KEYS = new Set(['id', 'name', 'config', 'disabled'])
const ROW_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export class CompositionError extends Error {
  /** True when the command line named something that is not there (a preset): the CLI exits 2, as for any usage error. */
  readonly usage: boolean

  constructor(message: string, options: { usage?: boolean } = {}) {
    super(message)
    this.name = 'CompositionError'
    this.usage = options.usage ?? false
  }
}

/**
 * Reads one layer. Data only: explicit YAML tags (`!!js/function` and the
 * like) and `__jsExpr` values are refused, since other loaders evaluate them.
 */
export async function readLayer(file: string, cache?: LayerCache): Promise<Layer> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error: any) {
    throw new CompositionError(`${file}: cannot read the composition file (${error?.code ?? error?.message ?? error}).`)
  }
  const known = cache?.get(text)
  if (known !== undefined) return layerOf(file, known)
  const { data, ...layer } = await parseLayer(file, text)
  cache?.remember(text, data)
  return layer
}

/** Parses a layer's text (the YAML parser is loaded at the first parse: a command whose layers the cache knows never loads it). */
export async function parseLayer(file: string, text: string): Promise<Layer & { data: unknown }> {
  const { parseYamlData } = await import('./yaml-data.js')
  const parsed = parseYamlData(file, text)
  if ('problem' in parsed) throw new CompositionError(parsed.problem)
  return { ...layerOf(file, parsed.data), data: parsed.data }
}

/** The rows of a layer's parsed data, each checked. */
function layerOf(file: string, data: unknown): Layer {
  if (data === null || data === undefined) return { file, rows: [] }
  if (!Array.isArray(data)) throw new CompositionError(`${file}: a composition file is a YAML list of rows ({ id, name, config, disabled }).`)
  const rows = data.map((row, index) => checkRow(file, row, index))
  const seen = new Set<string>()
  for (const row of rows) {
    if (seen.has(row.id)) throw new CompositionError(`${file}: row "${row.id}": the id appears twice in this file; ids are unique.`)
    seen.add(row.id)
  }
  return { file, rows }
}

function checkRow(file: string, row: unknown, index: number): RowSpec {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    throw new CompositionError(`${file}: row ${index + 1} is not a mapping of id, name, config, disabled.`)
  }
  const record = row as Record<string, unknown>
  const id = record.id
  if (typeof id !== 'string' || !ROW_ID.test(id)) {
    throw new CompositionError(`${file}: row ${index + 1}: "id" must be a string of letters, digits, dots, dashes or underscores (got ${JSON.stringify(id)}).`)
  }
  const label = `${file}: row "${id}"`
  for (const key of Object.keys(record)) {
    if (!ROW_KEYS.has(key)) throw new CompositionError(`${label}: unknown key "${key}" (a row has id, name, config, disabled).`)
  }
  if ('name' in record && (typeof record.name !== 'string' || !record.name)) {
    throw new CompositionError(`${label}: "name" must be a package name string.`)
  }
  if ('disabled' in record && typeof record.disabled !== 'boolean') {
    throw new CompositionError(`${label}: "disabled" must be true or false.`)
  }
  if ('config' in record && record.config !== null && (typeof record.config !== 'object' || Array.isArray(record.config))) {
    throw new CompositionError(`${label}: "config" must be a mapping.`)
  }
  const expression = findJsExpression(record.config, 'config')
  if (expression) throw new CompositionError(`${label}: "${expression}" is a __jsExpr value; composition files hold plain data, never code.`)
  return {
    id,
    ...(record.name !== undefined ? { name: record.name as string } : {}),
    ...(record.config !== undefined ? { config: (record.config ?? {}) as Record<string, unknown> } : {}),
    ...(record.disabled !== undefined ? { disabled: record.disabled as boolean } : {}),
  }
}

function findJsExpression(value: unknown, path: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, item] of Object.entries(value)) {
    const here = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`
    if (key === '__jsExpr') return here
    const found = findJsExpression(item, here)
    if (found) return found
  }
  return undefined
}
