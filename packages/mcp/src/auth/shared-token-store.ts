import { type StateStore, within } from 'dsh-host'
import { assertTokenName, checkRecords, isRecord, newToken, type TokenCheck, TokenError, tokenExists, type TokenRecord, type TokenStore } from './token-store.js'

/** The map of records the tokens are kept in (on Redis: the hash `<keyPrefix>records:mcp-tokens`). */
export const TOKEN_RECORDS = 'mcp-tokens'

/** Attempts of a change that another writer keeps coming before. */
const ATTEMPTS = 8

/**
 * A store answer slower than this fails the token check (503: fail
 * closed). Longer than the seam's cache timeout: a cache is skipped when
 * slow, a token check cannot be, and a loaded machine must not refuse every
 * request for a slow answer.
 */
export const RECORDS_TIMEOUT_MS = 2000

/**
 * The tokens in the composition's shared state store (ctx.stateStore, the
 * dsh-state-redis row), as records: one record per
 * name, the same `TokenRecord` as the file store (a hash, never the token).
 * Every machine on the store reads the same records, so a token created or
 * revoked through any of them holds for every `dsh mcp --http` from its next
 * request: `check` reads the records from the store at every request, with
 * no cache. A store that does not answer makes every method reject with
 * MCP_TOKEN_STORE_UNAVAILABLE (the server answers 503: fail closed), never a
 * fallback to a local copy that would not know of a revocation.
 */
export class SharedTokenStore implements TokenStore {
  constructor(private readonly store: StateStore) {}

  describe(): string {
    return `the shared state store "${this.store.id}" (${this.store.describe()}), records "${TOKEN_RECORDS}"`
  }

  async create(name: string, options: { expiresAt?: Date } = {}): Promise<{ token: string; record: TokenRecord }> {
    const made = newToken(name, options.expiresAt)
    await this.change(name, (current) => {
      if (current && !current.revoked) throw tokenExists(name)
      return made.record
    })
    return made
  }

  async list(): Promise<TokenRecord[]> {
    return [...(await this.read()).values()].map(({ record }) => record).sort((a, b) => a.created.localeCompare(b.created) || a.name.localeCompare(b.name))
  }

  async revoke(name: string): Promise<TokenRecord> {
    assertTokenName(name)
    return this.change(name, (current) => {
      if (!current) throw new TokenError('MCP_TOKEN_NOT_FOUND', `There is no token named "${name}" in ${this.describe()}; dsh mcp token list shows the names.`)
      return current.revoked ? current : { ...current, revoked: new Date().toISOString() }
    })
  }

  async check(token: string, now = new Date()): Promise<TokenCheck> {
    const byHash = new Map([...(await this.read()).values()].map(({ record }) => [record.sha256, record]))
    return checkRecords(byHash, token, now)
  }

  /** The records by name, with the text each was read as (what a change expects). */
  private async read(): Promise<Map<string, { text: string; record: TokenRecord }>> {
    let entries: Record<string, string>
    try {
      entries = await within(this.store.readRecords(TOKEN_RECORDS), RECORDS_TIMEOUT_MS)
    } catch (error) {
      throw this.unavailable(`cannot read the records "${TOKEN_RECORDS}"`, error)
    }
    const read = new Map<string, { text: string; record: TokenRecord }>()
    for (const [name, text] of Object.entries(entries)) {
      let record: unknown
      try {
        record = JSON.parse(text)
      } catch {
        record = undefined
      }
      if (!isRecord(record) || record.name !== name) {
        throw new TokenError('MCP_TOKEN_STORE_DAMAGED', `The token record "${name}" in ${this.describe()} is not a token record ({ name, sha256, created, expires, revoked }); remove it from the store (it authorises nobody) and create the token again.`)
      }
      read.set(name, { text, record })
    }
    return read
  }

  /** Replaces the record of `name` by what `next` makes of it, unless another writer changed it meanwhile (then again). */
  private async change(name: string, next: (current: TokenRecord | undefined) => TokenRecord): Promise<TokenRecord> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const current = (await this.read()).get(name)
      const record = next(current?.record)
      if (record === current?.record) return record
      let replaced: boolean
      try {
        replaced = await within(this.store.replaceRecord(TOKEN_RECORDS, name, current?.text, JSON.stringify(record)), RECORDS_TIMEOUT_MS)
      } catch (error) {
        throw this.unavailable(`cannot write a record of "${TOKEN_RECORDS}"`, error)
      }
      if (replaced) return record
    }
    throw new TokenError('MCP_TOKEN_STORE_UNAVAILABLE', `The token "${name}" in ${this.describe()} changed under every one of ${ATTEMPTS} attempts to change it (other writers); try again.`)
  }

  private unavailable(what: string, error: unknown): TokenError {
    const reason = String((error as Error)?.message ?? error).replace(/\s+/g, ' ').trim() || 'no reason given'
    return new TokenError('MCP_TOKEN_STORE_UNAVAILABLE', `The MCP tokens cannot be checked or changed: ${what}: the state store "${this.store.id}" (${this.store.describe()}) is not answering (${reason}). They are kept in the composition's shared state store (its state row, e.g. dsh-state-redis); start it, or check the credentials its row names (dsh doctor says more).`, { cause: error })
  }

}
