import { readFile } from 'node:fs/promises'
import YAML, { isAlias, isMap, isNode, isSeq, type Node } from 'yaml'

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
export async function readLayer(file: string): Promise<Layer> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error: any) {
    throw new CompositionError(`${file}: cannot read the composition file (${error?.code ?? error?.message ?? error}).`)
  }
  return parseLayer(file, text)
}

export function parseLayer(file: string, text: string): Layer {
  const doc = YAML.parseDocument(text, { version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: true })
  if (doc.errors.length) throw new CompositionError(`${file}: not valid YAML: ${doc.errors[0].message}`)
  let tagProblem: string | undefined
  YAML.visit(doc, {
    Node(_key, node) {
      const explicit = (node as Node & { tag?: string }).tag
      if (explicit && !tagProblem) {
        const row = rowAround(doc, node)
        tagProblem = `${file}${where(text, node)}: ${row ? `row "${row}": ` : ''}the YAML tag ${explicit.replace('tag:yaml.org,2002:', '!!')} is not allowed; composition files hold plain data, never code or typed values.`
      }
    },
  })
  if (tagProblem) throw new CompositionError(tagProblem)
  const data: unknown = doc.toJS({ maxAliasCount: 50 })
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

/** The id of the top-level row that contains `node`, when it has one. */
function rowAround(doc: YAML.Document, node: Node): string | undefined {
  const offset = node.range?.[0]
  const top = doc.contents
  if (offset === undefined || !isSeq(top)) return undefined
  for (const item of top.items) {
    if (isMap(item) && item.range && item.range[0] <= offset && offset <= item.range[2]) {
      const id = item.get('id')
      return typeof id === 'string' ? id : undefined
    }
  }
  return undefined
}

function where(text: string, node: unknown): string {
  if (!isNode(node) && !isAlias(node)) return ''
  const offset = (node as Node).range?.[0]
  if (offset === undefined) return ''
  const line = text.slice(0, offset).split('\n').length
  return `:${line}`
}
