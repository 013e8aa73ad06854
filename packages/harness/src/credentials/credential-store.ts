import { randomBytes } from 'node:crypto'
import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/

export class CredentialNameError extends Error {
  constructor(name: string) {
    super(`"${name}" is not a credential name: use letters, digits and underscores, starting with a letter or underscore (like DEEPSEEK_API_KEY).`)
    this.name = 'CredentialNameError'
  }
}

export function assertCredentialName(name: string): void {
  if (typeof name !== 'string' || !NAME.test(name)) throw new CredentialNameError(String(name))
}

interface StoreFile {
  version: 1
  credentials: Record<string, { value: string; updatedAt: string }>
}

/**
 * A JSON file of named secrets, mode 0600, replaced atomically on every write
 * (write a temp file beside it, fsync, rename). Read fresh on every lookup.
 */
export class CredentialStore {
  private queue: Promise<unknown> = Promise.resolve()

  constructor(readonly path: string) {}

  async read(): Promise<StoreFile> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
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

  /** Serialises read-modify-write cycles within this process. */
  private update(change: (file: StoreFile) => boolean): Promise<void> {
    const next = this.queue.then(async () => {
      const file = await this.read()
      if (!change(file)) return
      await this.write(file)
    })
    this.queue = next.catch(() => {})
    return next
  }

  private async write(file: StoreFile): Promise<void> {
    const folder = dirname(this.path)
    await mkdir(folder, { recursive: true, mode: 0o700 })
    const temp = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    const handle = await open(temp, 'wx', 0o600)
    try {
      await handle.writeFile(JSON.stringify(file, null, 2) + '\n', 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    try {
      await chmod(temp, 0o600)
      await rename(temp, this.path)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
  }
}
