import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { readdir, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { withFileLock } from '../file-lock.js'
import { assertPrivateHome, openPrivateFile, syncFolder } from 'dsh-host'

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
 * can write. Every change is a read-modify-write under the store's
 * cross-process lock (`credentials.json.lock`), and the file is replaced
 * atomically (temp file, fsync, rename, fsync of the folder), so concurrent
 * `set`s and `unset`s from many processes all take effect. Read fresh on
 * every lookup.
 */
export class CredentialStore {
  private queue: Promise<unknown> = Promise.resolve()

  constructor(readonly path: string, readonly options: { lockTimeoutMs?: number } = {}) {}

  async read(): Promise<StoreFile> {
    if (!(await assertPrivateHome(dirname(this.path)))) return { version: 1, credentials: {} }
    let text: string
    try {
      const handle = await openPrivateFile(this.path, constants.O_RDONLY, 'The credential store', { trustAnchor: true })
      try {
        text = await handle.readFile('utf8')
      } finally {
        await handle.close()
      }
    } catch (error: any) {
      if (error?.code === 'ENOENT') return { version: 1, credentials: {} }
      throw error
    }
    let parsed: any
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new Error(`The credential store ${this.path} is not valid JSON; fix or remove it.`)
    }
    if (!parsed || typeof parsed !== 'object' || typeof parsed.credentials !== 'object' || parsed.credentials === null) {
      throw new Error(`The credential store ${this.path} does not have the expected shape ({ "version": 1, "credentials": { ... } }).`)
    }
    return parsed as StoreFile
  }

  async get(name: string): Promise<string | undefined> {
    const entry = (await this.read()).credentials[name]
    return typeof entry?.value === 'string' && entry.value ? entry.value : undefined
  }

  async names(): Promise<string[]> {
    return Object.keys((await this.read()).credentials).sort()
  }

  set(name: string, value: string): Promise<void> {
    return this.update((file) => {
      file.credentials[name] = { value, updatedAt: new Date().toISOString() }
      return true
    })
  }

  unset(name: string): Promise<boolean> {
    let removed = false
    return this.update((file) => {
      removed = name in file.credentials
      delete file.credentials[name]
      return removed
    }).then(() => removed)
  }

  /** One read-modify-write at a time: in this process (the queue) and across processes (the lock). */
  private update(change: (file: StoreFile) => boolean): Promise<void> {
    const next = this.queue.then(async () => {
      await assertPrivateHome(dirname(this.path), { create: true })
      await withFileLock(this.path, async () => {
        await this.removeLeftovers()
        const file = await this.read()
        if (!change(file)) return
        await this.write(file)
      }, { timeoutMs: this.options.lockTimeoutMs, what: `The credential store ${this.path}` })
    })
    this.queue = next.catch(() => {})
    return next
  }

  private async write(file: StoreFile): Promise<void> {
    const folder = dirname(this.path)
    const temp = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    try {
      const handle = await openPrivateFile(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 'A credential store temp file')
      try {
        await handle.writeFile(JSON.stringify(file, null, 2) + '\n', 'utf8')
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temp, this.path)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
    await syncFolder(folder)
  }

  /** Temp files of writers that were killed before their rename (they hold secrets): removed under the lock. */
  private async removeLeftovers(): Promise<void> {
    const prefix = `${basename(this.path)}.`
    const folder = dirname(this.path)
    for (const name of await readdir(folder)) {
      const match = name.startsWith(prefix) && /^(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length))
      if (!match || Number(match[1]) === process.pid) continue
      try {
        process.kill(Number(match[1]), 0)
      } catch (error: any) {
        if (error?.code === 'ESRCH') await rm(join(folder, name), { force: true })
      }
    }
  }
}
