import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { openPrivateFile, syncFolder } from 'dsh-host'

/** The temp files `replaceFile` writes beside `path`: `<name>.<pid>.<12 hex>.tmp` (what a writer killed before its rename leaves). */
export const TEMP_FILE_SUFFIX = /^(\d+)\.[0-9a-f]{12}\.tmp$/

/**
 * Replaces the file at `path` with `text` so that a crash leaves the old
 * file or the new one, never half of one: a private temp file beside it
 * (0600, never an existing file or a link), fsync, rename over `path`,
 * fsync of the folder. `what` names the file in errors, with the article.
 */
export async function replaceFile(path: string, text: string, what: string): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  try {
    const handle = await openPrivateFile(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, `A temp file of ${what.toLowerCase()}`)
    try {
      await handle.writeFile(text, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  await syncFolder(dirname(path))
}
