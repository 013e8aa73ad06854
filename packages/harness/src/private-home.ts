import { constants, type Stats } from 'node:fs'
import { chmod, mkdir, stat, type FileHandle } from 'node:fs/promises'
import { openPrivateFile, UnsafePathError } from 'dsh-host'

/**
 * The host's trust anchors: $DSH_HOME, the credential store, the MCP token
 * hashes and the personal overlay. On top of the private-files policy every
 * plugin shares (dsh-host private-files.ts), they must be yours and
 * writable by no one else, as ssh demands of its keys. Only the host has
 * them, so the check lives here.
 */

const FOLDER_MODE = 0o700

/**
 * Read bits for others are corrected (by the caller); write bits are
 * refused, since another user may already have changed what is inside.
 */
function refuseForeignOrWritable(path: string, info: Stats, what: string): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined
  if (uid !== undefined && info.uid !== uid) {
    throw new UnsafePathError(
      `${what} ${path} is owned by uid ${info.uid}, not by you (uid ${uid}); dsh refuses to use it. Fix: chown ${uid} ${path}, or set DSH_HOME to a folder of your own.`,
      { details: { path, owner: info.uid, uid } },
    )
  }
  if (info.mode & 0o022) {
    const who = info.mode & 0o002 ? (info.mode & 0o020 ? 'group and others' : 'others') : 'group'
    const fix = info.isDirectory() ? `chmod 700 ${path}` : `chmod 600 ${path}`
    const mode = (info.mode & 0o7777).toString(8).padStart(4, '0')
    throw new UnsafePathError(
      `${what} ${path} is writable by ${who} (mode ${mode}); dsh refuses to use it, since another user could have changed what it holds. Fix: ${fix}`,
      { details: { path, mode } },
    )
  }
}

/**
 * Checks the home folder (a symbolic link to it is followed: the target is
 * checked). Creates it 0700 when missing and `create` is set; returns
 * whether it exists.
 */
export async function assertPrivateHome(home: string, options: { create?: boolean } = {}): Promise<boolean> {
  let info: Stats
  try {
    info = await stat(home)
  } catch (error: any) {
    if (error?.code !== 'ENOENT') throw error
    if (!options.create) return false
    await mkdir(home, { recursive: true, mode: FOLDER_MODE })
    info = await stat(home)
  }
  if (!info.isDirectory()) throw new UnsafePathError(`The dsh home ${home} is not a folder. Fix: move it away, or set DSH_HOME to a folder.`, { details: { path: home } })
  refuseForeignOrWritable(home, info, 'The dsh home')
  if (info.mode & 0o077) await chmod(home, FOLDER_MODE)
  return true
}

/** Opens a trust-anchor file as `openPrivateFile` does, refusing one that others can write instead of correcting it. */
export function openTrustAnchor(path: string, flags: number, what: string): Promise<FileHandle> {
  return openPrivateFile(path, flags, what, { check: refuseForeignOrWritable })
}

/**
 * Checks a trust-anchor file without following a link: it must be a
 * regular file of this user's that no one else can write. Returns false
 * when it does not exist.
 */
export async function assertPrivateFile(path: string, what: string): Promise<boolean> {
  try {
    await (await openTrustAnchor(path, constants.O_RDONLY, what)).close()
    return true
  } catch (error: any) {
    if (error?.code === 'ENOENT') return false
    throw error
  }
}
