/**
 * Checks a row's config against its plugin's schemastery `Config` before
 * anything is mounted: types and ranges (schemastery), and unknown keys
 * (which schemastery would silently drop).
 */

interface SchemaLike {
  (value?: unknown): unknown
  type?: string
  dict?: Record<string, SchemaLike>
  list?: SchemaLike[]
  inner?: SchemaLike
  meta?: { role?: string }
}

export function isSchema(value: unknown): value is SchemaLike {
  return typeof value === 'function' && typeof (value as SchemaLike).type === 'string'
}

/** Paths of keys the schema does not know, e.g. `config.foo` or `config.proxy.bar`. */
export function findUnknownKeys(schema: SchemaLike | undefined, value: unknown, path: string): string[] {
  if (!schema || typeof value !== 'object' || value === null) return []
  switch (schema.type) {
    case 'object': {
      if (Array.isArray(value)) return []
      const dict = schema.dict ?? {}
      const found: string[] = []
      for (const [key, item] of Object.entries(value)) {
        if (!(key in dict)) found.push(`${path}.${key}`)
        else found.push(...findUnknownKeys(dict[key], item, `${path}.${key}`))
      }
      return found
    }
    case 'intersect': {
      const members = schema.list ?? []
      if (!members.every((member) => member.type === 'object')) return []
      const merged = Object.assign({}, ...members.map((member) => member.dict)) as Record<string, SchemaLike>
      return findUnknownKeys(Object.assign(() => {}, { type: 'object', dict: merged }) as SchemaLike, value, path)
    }
    case 'dict':
      return Object.entries(value).flatMap(([key, item]) => findUnknownKeys(schema.inner, item, `${path}.${key}`))
    case 'array':
      return Array.isArray(value) ? value.flatMap((item, index) => findUnknownKeys(schema.inner, item, `${path}[${index}]`)) : []
    default:
      return []
  }
}

function isSecretPath(schema: SchemaLike | undefined, path: string[]): boolean {
  let current = schema
  for (const key of path) {
    if (current?.meta?.role === 'secret') return true
    const dict = current?.type === 'object' ? current.dict
      : current?.type === 'intersect' ? Object.assign({}, ...(current.list ?? []).map((member) => member.dict ?? {}))
      : undefined
    current = dict?.[key] ?? (current?.type === 'dict' ? current.inner : undefined)
  }
  return current?.meta?.role === 'secret'
}

/** A copy of `value` with every `.role('secret')` field shown as `<redacted>`. */
export function redactSecrets(schema: SchemaLike | undefined, value: unknown): unknown {
  if (!schema || typeof value !== 'object' || value === null) {
    return schema?.meta?.role === 'secret' && value !== undefined && value !== '' ? '<redacted>' : value
  }
  if (schema.meta?.role === 'secret') return '<redacted>'
  const dict = schema.type === 'object' ? schema.dict
    : schema.type === 'intersect' ? Object.assign({}, ...(schema.list ?? []).map((member) => member.dict ?? {}))
    : undefined
  if (dict && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactSecrets(dict[key], item)]))
  }
  if (schema.type === 'array' && Array.isArray(value)) return value.map((item) => redactSecrets(schema.inner, item))
  if (schema.type === 'dict' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactSecrets(schema.inner, item)]))
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
  if (unknown.length) {
    const known = schema.type === 'object' ? Object.keys(schema.dict ?? {}) : []
    return {
      problems: unknown.map((path) => `key "${path.replace(/^config\./, '')}" is not a config key of this plugin` + (known.length && !path.slice(7).includes('.') ? ` (known: ${known.join(', ')})` : '')),
    }
  }
  try {
    return { config: schema(config), problems: [] }
  } catch (error: any) {
    let message = String(error?.message ?? error)
    // schemastery quotes the offending value: never for a secret.
    const path = /^\$\.([\w.]+) /.exec(message)?.[1]
    if (path && isSecretPath(schema, path.split('.'))) message = message.replace(/ but got [\s\S]*$/, ' (the value is secret and not shown)')
    return { problems: [message.replace(/^\$\./, 'key ').replace(/^\$ /, 'config ')] }
  }
}
