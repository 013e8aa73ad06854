import { isCredentialName } from './credential-store.js'

/** Where a composition names a credential: the row and the config key (a dotted path for a nested one, `proxy.credential`). */
export interface CredentialReference {
  row: string
  key: string
}

/**
 * How a row names a credential, the convention every plugin's schema
 * follows: a config key `credential`, or one ending in `Credential`
 * (`urlCredential`, `passwordCredential`) or `Env` (`apiKeyEnv`, `authEnv`:
 * without a credentials service, the environment variable read). Its value
 * is the credential's name, never its value.
 */
const NAMES_A_CREDENTIAL = /^(credential|.+Credential|.+Env)$/

/**
 * Every credential name the rows' resolved configs (defaults filled in)
 * name, with the rows and keys that name it; disabled rows name nothing.
 * Derived from what booted, so an overlay's rows (the Redis row's URL, a
 * provider's key, a proxy's credential) are in it as soon as they are
 * mounted, with no list to keep in step.
 */
export function credentialReferences(rows: Iterable<{ id: string; status: string; config: unknown }>): Map<string, CredentialReference[]> {
  const found = new Map<string, CredentialReference[]>()
  for (const row of rows) {
    if (row.status === 'disabled') continue
    // Iterative, each object once: a config is checked data, but a YAML alias can share (or loop back to) a node.
    const pending: Array<[string, unknown]> = [['', row.config]]
    const seen = new Set<object>()
    // A queue, so names are reported in the order the config holds them.
    for (let next = 0; next < pending.length; next++) {
      const [path, value] = pending[next]
      if (value === null || typeof value !== 'object' || seen.has(value)) continue
      seen.add(value)
      for (const [key, item] of Object.entries(value)) {
        const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key
        if (!Array.isArray(value) && NAMES_A_CREDENTIAL.test(key) && isCredentialName(item)) {
          const list = found.get(item) ?? []
          list.push({ row: row.id, key: at })
          found.set(item, list)
        } else if (item !== null && typeof item === 'object') pending.push([at, item])
      }
    }
  }
  return found
}
