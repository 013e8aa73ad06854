import { constants } from 'node:fs'
import { readdir, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { CodedError, type CodedErrorOptions } from 'dsh-host'
import { assertPrivateHome, openTrustAnchor } from './private-home.js'
import { withFileLock } from './file-lock.js'
import { replaceFile, TEMP_FILE_SUFFIX } from './replace-file.js'

/**
 * The one JSON file of records under $DSH_HOME (the credential store, the MCP
 * token hashes): 0600 in the 0700 home, read fresh on every call, every
 * change a read-modify-write under the file's cross-process lock
 * (`<file>.lock`), the file replaced atomically (temp file, fsync, rename,
 * fsync of the folder), so concurrent changes from many processes all take
 * effect and a crash leaves the old file or the new one, never half of one.
 * A file that is not JSON or not of the expected shape is refused with an
 * error naming it, and never written over: what it holds is the user's.
 */

/** A store file that cannot be read as what it should hold. */
export class JsonFileDamagedError extends CodedError<'JSON_FILE_DAMAGED'> {
  constructor(message: string, options: CodedErrorOptions = {}) {
    super('JSON_FILE_DAMAGED', message, options)
    this.name = 'JsonFileDamagedError'
  }
}

export interface LockedJsonFileOptions<T> {
  /** For people, with the article: "The credential store". */
  what: string
  /** The contents when the file (or the home) does not exist yet. */
  empty: () => T
  /** Whether parsed JSON has the shape of T. */
  accepts: (value: any) => value is T
  /** The expected shape, for the message about a damaged file: `{ "version": 1, ... }`. */
  shape: string
  /** What to do about a damaged file, for people ("fix or remove it"). */
  fix: string
  /** The error for a damaged file (default JsonFileDamagedError), so a store keeps its own error codes. */
  damaged?: (message: string, details: { path: string }) => Error
  /** How long a change waits for the lock held by another live process. */
  lockTimeoutMs?: number
}

export class LockedJsonFile<T> {
  private queue: Promise<unknown> = Promise.resolve()

  constructor(readonly path: string, private readonly options: LockedJsonFileOptions<T>) {}

  async read(): Promise<T> {
    const { what } = this.options
    if (!(await assertPrivateHome(dirname(this.path)))) return this.options.empty()
    let text: string
    try {
      const handle = await openTrustAnchor(this.path, constants.O_RDONLY, what)
      try {
        text = await handle.readFile('utf8')
      } finally {
        await handle.close()
      }
    } catch (error: any) {
      if (error?.code === 'ENOENT') return this.options.empty()
      throw error
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw this.damaged(`${what} ${this.path} is not valid JSON; ${this.options.fix}.`, error)
    }
    if (!this.options.accepts(parsed)) throw this.damaged(`${what} ${this.path} does not have the expected shape (${this.options.shape}); ${this.options.fix}.`)
    return parsed
  }

  /**
   * One read-modify-write at a time: in this process (the queue) and across
   * processes (the lock). `change` edits the contents in place; returning
   * false leaves the file as it is. Whatever `change` throws is passed on,
   * and the file is not written.
   */
  update(change: (contents: T) => boolean | void): Promise<void> {
    const next = this.queue.then(async () => {
      await assertPrivateHome(dirname(this.path), { create: true })
      await withFileLock(this.path, async () => {
        await this.removeLeftovers()
        const contents = await this.read()
        if (change(contents) === false) return
        await this.write(contents)
      }, { timeoutMs: this.options.lockTimeoutMs, what: `${this.options.what} ${this.path}` })
    })
    this.queue = next.catch(() => {})
    return next
  }

  private damaged(message: string, cause?: unknown): Error {
    const details = { path: this.path }
    return this.options.damaged ? this.options.damaged(message, details) : new JsonFileDamagedError(message, { details, cause })
  }

  private write(contents: T): Promise<void> {
    return replaceFile(this.path, JSON.stringify(contents, null, 2) + '\n', this.options.what)
  }

  /** Temp files of writers killed before their rename (they may hold secrets): removed under the lock. */
  private async removeLeftovers(): Promise<void> {
    const prefix = `${basename(this.path)}.`
    const folder = dirname(this.path)
    for (const name of await readdir(folder)) {
      const match = name.startsWith(prefix) && TEMP_FILE_SUFFIX.exec(name.slice(prefix.length))
      if (!match || Number(match[1]) === process.pid) continue
      try {
        process.kill(Number(match[1]), 0)
      } catch (error: any) {
        if (error?.code === 'ESRCH') await rm(join(folder, name), { force: true })
      }
    }
  }
}
