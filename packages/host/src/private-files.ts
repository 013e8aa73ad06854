import { constants, type Stats } from 'node:fs'
import { chmod, lstat, mkdir, open, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import { CodedError, type CodedErrorOptions } from './errors.js'

/**
 * The private-files policy a host and its plugins share: how they create and
 * open the folders and files they keep (0700 folders, 0600 files, never
 * through a symbolic link, never another user's). The artifact writer and
 * the host's session logs go through here; the host's own trust anchors
 * ($DSH_HOME, the credential store, the personal overlay), which must also
 * be writable by no one else, are checked by the host (dsh-harness
 * private-home.ts) through `openPrivateFile`'s `check`.
 */

/** A file or folder dsh will not use: a symbolic link, another user's, or writable by others. */
export class UnsafePathError extends CodedError<'UNSAFE_PATH'> {
  constructor(message: string, options: CodedErrorOptions = {}) {
    super('UNSAFE_PATH', message, options)
    this.name = 'UnsafePathError'
  }

  static override is(value: unknown): value is UnsafePathError {
    return CodedError.is(value) && value.code === 'UNSAFE_PATH'
  }
}

const FOLDER_MODE = 0o700
const FILE_MODE = 0o600
/** Absent on Windows, where these checks rest on the lstat of each path instead. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined
}

function symlinkRefusal(path: string, what: string): UnsafePathError {
  return new UnsafePathError(
    `${what} ${path} is a symbolic link; dsh writes its records only into real files and folders of its own. Fix: remove the link (rm ${path}) and try again.`,
    { details: { path } },
  )
}

/**
 * A folder under the home: created 0700 when missing (the parent must
 * exist), refused when it is a symbolic link, not a folder or another
 * user's, its mode corrected to 0700 when lax. Returns false when it is
 * missing and `create` is not set.
 */
export async function ensurePrivateFolder(path: string, what: string, options: { create: boolean }): Promise<boolean> {
  let info: Stats
  try {
    info = await lstat(path)
  } catch (error: any) {
    if (error?.code !== 'ENOENT') throw error
    if (!options.create) return false
    try {
      await mkdir(path, { mode: FOLDER_MODE })
    } catch (made: any) {
      if (made?.code !== 'EEXIST') throw made
    }
    await syncFolder(dirname(path))
    info = await lstat(path)
  }
  if (info.isSymbolicLink()) throw symlinkRefusal(path, what)
  if (!info.isDirectory()) throw new UnsafePathError(`${what} ${path} is not a folder. Fix: move it away.`, { details: { path } })
  const uid = currentUid()
  if (uid !== undefined && info.uid !== uid) {
    throw new UnsafePathError(`${what} ${path} is owned by uid ${info.uid}, not by you (uid ${uid}). Fix: chown -R ${uid} ${path}.`, { details: { path, owner: info.uid, uid } })
  }
  if (info.mode & 0o077) await chmod(path, FOLDER_MODE)
  return true
}

/**
 * Opens a file under the home without following a symbolic link
 * (`O_NOFOLLOW`); a new file is created 0600, an existing one must be a
 * regular file of this user's and has a lax mode corrected to 0600.
 * `flags` are the usual `O_*` flags (`O_CREAT` to create). A `check`
 * replaces the owner check and runs before a lax mode is corrected, so it
 * can refuse what a correction would hide (a trust anchor others can write).
 */
export async function openPrivateFile(path: string, flags: number, what: string, options: { check?: (path: string, info: Stats, what: string) => void } = {}): Promise<FileHandle> {
  let handle: FileHandle
  try {
    handle = await open(path, flags | NO_FOLLOW, FILE_MODE)
  } catch (error: any) {
    if (error?.code === 'ELOOP') throw symlinkRefusal(path, what)
    if (error?.code === 'EEXIST' && (await lstat(path).catch(() => undefined))?.isSymbolicLink()) throw symlinkRefusal(path, what)
    throw error
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw new UnsafePathError(`${what} ${path} is not a regular file. Fix: move it away.`, { details: { path } })
    const uid = currentUid()
    if (options.check) options.check(path, info, what)
    else if (uid !== undefined && info.uid !== uid) {
      throw new UnsafePathError(`${what} ${path} is owned by uid ${info.uid}, not by you (uid ${uid}). Fix: chown ${uid} ${path}.`, { details: { path, owner: info.uid, uid } })
    }
    if (info.mode & 0o077) await handle.chmod(FILE_MODE)
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}

/** fsync of a folder, so a file created, renamed or removed in it survives a crash. */
export async function syncFolder(path: string): Promise<void> {
  if (process.platform === 'win32') return // Windows cannot open a folder to fsync it.
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
