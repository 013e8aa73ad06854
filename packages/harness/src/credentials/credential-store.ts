import { LockedJsonFile } from '../locked-json-file.js'

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/

export class CredentialNameError extends Error {
  constructor(name: string) {
    super(`"${name}" is not a credential name: use letters, digits and underscores, starting with a letter or underscore (like DEEPSEEK_API_KEY).`)
    this.name = 'CredentialNameError'
  }
}

export function isCredentialName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name)
}

export function assertCredentialName(name: string): void {
  if (!isCredentialName(name)) throw new CredentialNameError(String(name))
}

interface StoreFile {
  version: 1
  credentials: Record<string, { value: string; updatedAt: string }>
}

/**
 * A JSON file of named secrets, mode 0600 in a 0700 home that no other user
 * can write (locked-json-file.ts: every change a read-modify-write under the
 * cross-process lock `credentials.json.lock`, the file replaced atomically),
 * so concurrent `set`s and `unset`s from many processes all take effect.
 * Read fresh on every lookup.
 */
export class CredentialStore {
  private readonly file: LockedJsonFile<StoreFile>

  constructor(readonly path: string, readonly options: { lockTimeoutMs?: number } = {}) {
    this.file = new LockedJsonFile(path, {
      what: 'The credential store',
      empty: () => ({ version: 1, credentials: {} }),
      accepts: (value): value is StoreFile => !!value && typeof value === 'object' && typeof value.credentials === 'object' && value.credentials !== null,
      shape: '{ "version": 1, "credentials": { ... } }',
      fix: 'fix or remove it',
      lockTimeoutMs: options.lockTimeoutMs,
    })
  }

  read(): Promise<StoreFile> {
    return this.file.read()
  }

  async get(name: string): Promise<string | undefined> {
    const entry = (await this.read()).credentials[name]
    return typeof entry?.value === 'string' && entry.value ? entry.value : undefined
  }

  async names(): Promise<string[]> {
    return Object.keys((await this.read()).credentials).sort()
  }

  set(name: string, value: string): Promise<void> {
    return this.file.update((file) => {
      file.credentials[name] = { value, updatedAt: new Date().toISOString() }
    })
  }

  async unset(name: string): Promise<boolean> {
    let removed = false
    await this.file.update((file) => {
      removed = name in file.credentials
      delete file.credentials[name]
      return removed
    })
    return removed
  }
}
