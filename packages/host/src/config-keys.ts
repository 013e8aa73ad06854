/**
 * Unknown keys in a plugin's config. Schemastery (the schema library of
 * Cordis and Koishi) keeps a key its object schema does not declare, and the
 * plugin would never read it: a misspelled `privateHost` would leave the
 * operator believing a setting holds. dsh-harness's loader refuses such a row
 * before mounting it; `refuseUnknownKeys` lets each plugin refuse it itself,
 * whichever host mounts it. Only the fields schemastery's `.d.ts` declares
 * (`type`, `dict`, `list`, `inner`) are read.
 */
import { CodedError } from './errors.js'

/** The part of a schemastery schema this reads. */
export interface ConfigSchemaShape {
  type?: string
  dict?: Record<string, ConfigSchemaShape>
  list?: ConfigSchemaShape[]
  inner?: ConfigSchemaShape
}

/** The fields of an object schema, an intersection of object schemas merged; else undefined. */
export function objectFields<S extends ConfigSchemaShape>(schema: S | undefined): Record<string, S> | undefined {
  if (schema?.type === 'object') return (schema.dict ?? {}) as Record<string, S>
  if (schema?.type === 'intersect' && (schema.list ?? []).every((member) => member.type === 'object')) {
    return Object.assign({}, ...(schema.list ?? []).map((member) => member.dict ?? {}))
  }
  return undefined
}

/** Paths of keys the schema does not know, e.g. `config.foo` or `config.proxy.bar`. */
export function findUnknownKeys(schema: ConfigSchemaShape | undefined, value: unknown, path: string): string[] {
  if (!schema || typeof value !== 'object' || value === null) return []
  const fields = objectFields(schema)
  if (fields) {
    if (Array.isArray(value)) return []
    return Object.entries(value).flatMap(([key, item]) => (Object.hasOwn(fields, key) ? findUnknownKeys(fields[key], item, `${path}.${key}`) : [`${path}.${key}`]))
  }
  switch (schema.type) {
    case 'dict':
      return Object.entries(value).flatMap(([key, item]) => findUnknownKeys(schema.inner, item, `${path}.${key}`))
    case 'array':
      return Array.isArray(value) ? value.flatMap((item, index) => findUnknownKeys(schema.inner, item, `${path}[${index}]`)) : []
    default:
      return []
  }
}

/** One line per unknown key (paths as `findUnknownKeys` gives them, under `config`), with the known top-level keys for a top-level one. */
export function describeUnknownKeys(schema: ConfigSchemaShape, paths: string[]): string[] {
  const known = Object.keys(objectFields(schema) ?? {})
  return paths.map((path) => {
    const key = path.replace(/^config\./, '')
    return `key "${key}" is not a config key of this plugin` + (known.length && !key.includes('.') ? ` (known: ${known.join(', ')})` : '')
  })
}

/** A plugin's config holds keys its schema does not declare. */
export class UnknownConfigKeyError extends CodedError<'CONFIG_UNKNOWN_KEY', { plugin: string; keys: string[] }> {
  constructor(plugin: string, keys: string[], problems: string[]) {
    super('CONFIG_UNKNOWN_KEY', `${plugin} refuses its config: ${problems.join('; ')}. Remove or correct the key (docs/config.md lists every key).`, { details: { plugin, keys } })
    this.name = 'UnknownConfigKeyError'
  }
}

/** Throws an `UnknownConfigKeyError` (the plugin then does not start, and its host logs why) when `config` holds a key `schema` does not declare. */
export function refuseUnknownKeys(plugin: string, schema: ConfigSchemaShape, config: unknown): void {
  const unknown = findUnknownKeys(schema, config, 'config')
  if (unknown.length) throw new UnknownConfigKeyError(plugin, unknown.map((path) => path.replace(/^config\./, '')), describeUnknownKeys(schema, unknown))
}
