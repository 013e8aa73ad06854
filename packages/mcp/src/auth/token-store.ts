import { createHash, randomBytes } from 'node:crypto'
import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { CodedError, type CodedErrorOptions } from 'dsh-host'
import { LockedJsonFile } from 'dsh-harness'

/**
 * Bearer tokens for `dsh mcp --http`. A token is shown once, when it is
 * created; the store keeps only its SHA-256. `TokenStore` is the seam: the
 * file store under `$DSH_HOME` (here) when the composition's state is this
 * process's own, the composition's shared state store (Redis) otherwise
 * (shared-token-store.ts; select-token-store.ts picks).
 */

export type TokenErrorCode = 'MCP_TOKEN_EXISTS' | 'MCP_TOKEN_NOT_FOUND' | 'MCP_TOKEN_STORE_DAMAGED' | 'MCP_TOKEN_STORE_UNAVAILABLE' | 'INVALID_ARGUMENT'

export class TokenError extends CodedError<TokenErrorCode> {
  constructor(code: TokenErrorCode, message: string, options: CodedErrorOptions = {}) {
    super(code, message, options)
    this.name = 'TokenError'
  }
}

/** What the store keeps of a token: never the token itself. */
export interface TokenRecord {
  name: string
  /** SHA-256 (hex) of the token text. */
  sha256: string
  created: string
  /** ISO time after which the token is refused; null: never. */
  expires: string | null
  /** ISO time it was revoked; null: in force. */
  revoked: string | null
}

/** The outcome of checking a presented token. */
export type TokenCheck =
  | { ok: true; name: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked'; name?: string }

export interface TokenStore {
  /** Where the hashes are, for people: `the file /home/a/.dsh/mcp-tokens.json`. */
  describe(): string
  /** Creates a token; the returned text is the only copy there will ever be. */
  create(name: string, options?: { expiresAt?: Date }): Promise<{ token: string; record: TokenRecord }>
  list(): Promise<TokenRecord[]>
  /** Marks the token revoked; it is refused from the next request on. */
  revoke(name: string): Promise<TokenRecord>
  /** Checks a presented token against the store as it is now. */
  check(token: string, now?: Date): Promise<TokenCheck>
}

const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const TOKEN_PREFIX = 'dsh_'

export function assertTokenName(name: string): void {
  if (typeof name !== 'string' || !TOKEN_NAME.test(name)) {
    throw new TokenError('INVALID_ARGUMENT', `"${name}" is not a token name: use up to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit (like ci-agents).`)
  }
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** A new token and the record kept of it (the token itself is returned once, never kept). */
export function newToken(name: string, expiresAt?: Date): { token: string; record: TokenRecord } {
  assertTokenName(name)
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url')
  return {
    token,
    record: { name, sha256: hashToken(token), created: new Date().toISOString(), expires: expiresAt ? expiresAt.toISOString() : null, revoked: null },
  }
}

/** The one check of a presented token against the records as they are now, for every store. */
export function checkRecords(byHash: Map<string, TokenRecord>, token: string, now: Date): TokenCheck {
  const record = byHash.get(hashToken(token))
  if (!record) return { ok: false, reason: 'unknown' }
  if (record.revoked) return { ok: false, reason: 'revoked', name: record.name }
  if (record.expires && Date.parse(record.expires) <= now.getTime()) return { ok: false, reason: 'expired', name: record.name }
  return { ok: true, name: record.name }
}

export function tokenExists(name: string): TokenError {
  return new TokenError('MCP_TOKEN_EXISTS', `A token named "${name}" exists already; revoke it first (dsh mcp token revoke ${name}) or choose another name.`)
}

interface StoreFile {
  version: 1
  tokens: TokenRecord[]
}

/**
 * `$DSH_HOME/mcp-tokens.json` (0600, in the 0700 home): the token hashes.
 * Changes are read-modify-write under the file's cross-process lock and
 * replace the file atomically (locked-json-file.ts), so each change
 * gives the file a new inode; `check` stats the file on every call and
 * reads it again when it changed, so a revocation made by any process on
 * the machine holds from the next request on.
 */
export class FileTokenStore implements TokenStore {
  private cached: { stamp: string; byHash: Map<string, TokenRecord> } | undefined
  private readonly file: LockedJsonFile<StoreFile>

  constructor(readonly path: string, readonly options: { lockTimeoutMs?: number } = {}) {
    this.file = new LockedJsonFile(path, {
      what: 'The MCP token store',
      empty: () => ({ version: 1, tokens: [] }),
      accepts: (value): value is StoreFile => !!value && value.version === 1 && Array.isArray(value.tokens) && value.tokens.every(isRecord),
      shape: '{ "version": 1, "tokens": [{ name, sha256, created, expires, revoked }] }',
      fix: 'fix it, or remove it and create the tokens again',
      damaged: (message, details) => new TokenError('MCP_TOKEN_STORE_DAMAGED', message, { details }),
      lockTimeoutMs: options.lockTimeoutMs,
    })
  }

  static inHome(home: string): FileTokenStore {
    return new FileTokenStore(join(home, 'mcp-tokens.json'))
  }

  describe(): string {
    return `the file ${this.path}`
  }

  async create(name: string, options: { expiresAt?: Date } = {}): Promise<{ token: string; record: TokenRecord }> {
    const { token, record } = newToken(name, options.expiresAt)
    await this.file.update((file) => {
      const existing = file.tokens.find((entry) => entry.name === name)
      if (existing && !existing.revoked) throw tokenExists(name)
      file.tokens = file.tokens.filter((entry) => entry.name !== name)
      file.tokens.push(record)
    })
    return { token, record }
  }

  async list(): Promise<TokenRecord[]> {
    return (await this.file.read()).tokens.map((record) => ({ ...record }))
  }

  async revoke(name: string): Promise<TokenRecord> {
    assertTokenName(name)
    let revoked: TokenRecord | undefined
    await this.file.update((file) => {
      const found = file.tokens.find((entry) => entry.name === name)
      if (!found) throw new TokenError('MCP_TOKEN_NOT_FOUND', `There is no token named "${name}" in ${this.path}; dsh mcp token list shows the names.`)
      found.revoked ??= new Date().toISOString()
      revoked = { ...found }
    })
    return revoked!
  }

  async check(token: string, now = new Date()): Promise<TokenCheck> {
    return checkRecords(await this.current(), token, now)
  }

  /** The tokens by hash, read again whenever the file's inode, size or times changed. */
  private async current(): Promise<Map<string, TokenRecord>> {
    let stamp = 'missing'
    try {
      const info = await lstat(this.path)
      stamp = `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`
    } catch (error: any) {
      if (error?.code !== 'ENOENT') throw error
    }
    if (this.cached?.stamp !== stamp) {
      const file = await this.file.read()
      this.cached = { stamp, byHash: new Map(file.tokens.map((record) => [record.sha256, record])) }
    }
    return this.cached.byHash
  }
}

export function isRecord(value: any): value is TokenRecord {
  return !!value && typeof value.name === 'string' && typeof value.sha256 === 'string' && /^[0-9a-f]{64}$/.test(value.sha256)
    && typeof value.created === 'string' && (value.expires === null || typeof value.expires === 'string') && (value.revoked === null || typeof value.revoked === 'string')
}
