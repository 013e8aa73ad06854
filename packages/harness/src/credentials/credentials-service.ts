import { join } from 'node:path'
import { type Context, Service } from 'cordis'
import type { CredentialsService as CredentialsContract, ResolvedCredential } from 'dsh-host'
import type { CredentialReference } from './credential-references.js'
import { assertCredentialName, CredentialStore } from './credential-store.js'

export interface CredentialsConfig {
  home: string
  /** How long a change waits for another process changing the store (default 10 s). */
  lockTimeoutMs?: number
}

export type CredentialSource = 'environment' | 'store'

export interface CredentialDescription {
  name: string
  configured: boolean
  source?: CredentialSource
  /** Also in the store, but the environment wins. */
  shadowed?: boolean
  value?: '<redacted>'
}

/**
 * `ctx.credentials`: named secrets from the process environment (read only,
 * first) and a store file under the home folder. Nothing is cached: every
 * `resolve` reads the current value.
 */
export class CredentialsService extends Service<CredentialsConfig> implements CredentialsContract {
  readonly store: CredentialStore

  constructor(ctx: Context, config: CredentialsConfig) {
    super(ctx, 'credentials', true)
    this.config = config
    this.store = new CredentialStore(join(config.home, 'credentials.json'), { lockTimeoutMs: config.lockTimeoutMs })
  }

  async resolve(ref: string): Promise<(ResolvedCredential & { source: CredentialSource }) | undefined> {
    assertCredentialName(ref)
    const fromEnv = process.env[ref]
    if (fromEnv) return { value: fromEnv, source: 'environment' }
    const stored = await this.store.get(ref)
    if (stored) return { value: stored, source: 'store' }
    return undefined
  }

  async describe(ref: string): Promise<CredentialDescription> {
    assertCredentialName(ref)
    const inEnv = !!process.env[ref]
    const inStore = (await this.store.get(ref)) !== undefined
    if (!inEnv && !inStore) return { name: ref, configured: false }
    return {
      name: ref,
      configured: true,
      source: inEnv ? 'environment' : 'store',
      ...(inEnv && inStore ? { shadowed: true } : {}),
      value: '<redacted>',
    }
  }

  async set(ref: string, value: string): Promise<void> {
    assertCredentialName(ref)
    if (typeof value !== 'string' || !value) throw new Error(`The value for ${ref} is empty; nothing was stored.`)
    if (/[\r\n\0]/.test(value)) throw new Error(`The value for ${ref} contains a line break or NUL byte; nothing was stored.`)
    await this.store.set(ref, value)
  }

  /** Removes a stored value; returns whether there was one. The environment is never changed. */
  async unset(ref: string): Promise<boolean> {
    assertCredentialName(ref)
    return this.store.unset(ref)
  }

  /**
   * Every stored name and every name the composition references (from
   * `credentialReferences`), each with whether it is configured and where,
   * and the rows that name it (empty for a stored name no row uses).
   */
  async list(references: Map<string, CredentialReference[]> = new Map()): Promise<Array<CredentialDescription & { namedBy: CredentialReference[] }>> {
    const names = new Set([...(await this.store.names()), ...references.keys()])
    return Promise.all([...names].sort().map(async (name) => ({ ...(await this.describe(name)), namedBy: references.get(name) ?? [] })))
  }
}
