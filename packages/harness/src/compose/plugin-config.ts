/**
 * Checks a row's config against its plugin's schemastery `Config` before
 * anything is mounted: types and ranges (schemastery), and unknown keys
 * (which no plugin would read: dsh-host's findUnknownKeys, the check each
 * plugin also makes itself under any host).
 *
 * Only schemastery's public surface is read: the fields its `.d.ts` declares
 * (`type`, `dict`, `list`, `inner`, `meta`), its Standard Schema marker, and
 * `Schema.ValidationError` with its `options.path`.
 */
import { Schema } from 'cordis'
import { describeUnknownKeys, findUnknownKeys, objectFields } from 'dsh-host'

/**
 * A schemastery schema from any copy of the package: every schemastery schema
 * carries the Standard Schema property with vendor "schemastery".
 */
export function isSchema(value: unknown): value is Schema {
  if (typeof value !== 'function') return false
  const standard = (value as Partial<Schema>)['~standard'] as { vendor?: unknown } | undefined
  return standard?.vendor === 'schemastery'
}

/** The schema of one member of a container schema: an object's field, a dict's or an array's items. */
function memberSchema(schema: Schema | undefined, key: string | number): Schema | undefined {
  if (schema?.type === 'dict' || schema?.type === 'array') return schema.inner
  return typeof key === 'string' ? objectFields(schema)?.[key] : undefined
}

export function isSecret(schema: Schema | undefined): boolean {
  return schema?.meta?.role === 'secret'
}

function isSecretPath(schema: Schema | undefined, path: readonly PropertyKey[]): boolean {
  let current = schema
  for (const key of path) {
    if (isSecret(current)) return true
    current = typeof key === 'symbol' ? undefined : memberSchema(current, key)
  }
  return isSecret(current)
}

/** A copy of `value` with every `.role('secret')` field shown as `<redacted>`. */
export function redactSecrets(schema: Schema | undefined, value: unknown): unknown {
  if (!schema || typeof value !== 'object' || value === null) {
    return isSecret(schema) && value !== undefined && value !== '' ? '<redacted>' : value
  }
  if (isSecret(schema)) return '<redacted>'
  if (Array.isArray(value)) return schema.type === 'array' ? value.map((item) => redactSecrets(schema.inner, item)) : value
  if (objectFields(schema) || schema.type === 'dict') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactSecrets(memberSchema(schema, key), item)]))
  }
  return value
}

/** Resolves a config with defaults filled in, or says what is wrong with it. */
export function resolvePluginConfig(schema: unknown, config: Record<string, unknown>): { config?: unknown; problems: string[] } {
  if (!isSchema(schema)) {
    const keys = Object.keys(config)
    return keys.length ? { problems: keys.map((key) => `key "${key}" is not accepted: the plugin has no Config schema`) } : { config: {}, problems: [] }
  }
  const unknown = findUnknownKeys(schema, config, 'config')
  if (unknown.length) return { problems: describeUnknownKeys(schema, unknown) }
  try {
    return { config: schema(config), problems: [] }
  } catch (error: any) {
    if (!Schema.ValidationError.is(error)) return { problems: [String(error?.message ?? error)] }
    return { problems: [describeValidationError(schema, error)] }
  }
}

/** `key a.b[0] expected ...` from schemastery's error, whose message starts with the path it also gives as `options.path`. */
function describeValidationError(schema: Schema, error: InstanceType<typeof Schema.ValidationError>): string {
  const path = error.options.path ?? []
  const shown = path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index ? '.' : ''}${String(key)}`)).join('')
  const prefix = `$${path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')} `
  let message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message
  // schemastery quotes the offending value: never for a secret.
  if (isSecretPath(schema, path)) message = message.replace(/ but got [\s\S]*$/, ' (the value is secret and not shown)')
  return `${path.length ? `key ${shown}` : 'config'} ${message}`
}
