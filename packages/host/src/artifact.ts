import { createHash, randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { link, mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { ArtifactWriteError, CodedError } from './errors.js'
import { ensurePrivateFolder, openPrivateFile, syncFolder } from './private-files.js'
import type { SessionHandle } from './session.js'
import { fenceUntrusted } from './untrusted.js'

/** A file that holds a result whole: where it is, its size and its hash. */
export interface ArtifactRef {
  path: string
  bytes: number
  sha256: string
}

export interface WriteArtifactOptions {
  /** The call's session: the file goes to its `artifacts/` folder. */
  session?: SessionHandle
  /** Start of the file name (sanitised, at most 80 characters); a random suffix keeps names unique. */
  stem: string
  /** File extension without the dot (letters and digits; default `txt`). */
  extension: string
  /**
   * The folder to write to instead of the session's `artifacts/` folder or
   * the temp folder (an operator's setting, e.g. the fetch provider's
   * `artifactDir`). Created when missing.
   */
  directory?: string
  /**
   * Where the content came from, when it is a page's or a provider's text:
   * the file then holds it inside the untrusted-content fence
   * (`fenceUntrusted`), so whoever reads the file (the model with a file
   * tool, a person with `cat`) meets the same marker, note and neutralised
   * text (fence markers defanged, control characters shown) as in the tool's
   * result. `bytes` and `sha256` are those of the file as written.
   */
  untrustedSource?: string
}

/**
 * Writes content whole to an artifact file: to `directory` when given, else
 * under the session's folder when there is a session, else a temp folder.
 * The name is `<stem>-<random>.<extension>`; an existing file is never
 * overwritten. The folder is 0700 and the file 0600, and neither is reached
 * through a symbolic link (a planted link is refused, never followed). A
 * failure is an `ArtifactWriteError`, never a silent drop.
 *
 * The content goes to a hidden temp file first, made durable, then linked
 * to its name (link(2) fails when the name exists, where rename would
 * overwrite): the name only ever holds a complete file, and on any failure
 * (a full disk part-way, a file size limit) the temp file is removed, so a
 * failed write leaves nothing behind to fill the disk for the next call.
 */
export async function writeArtifact(content: string, options: WriteArtifactOptions): Promise<ArtifactRef> {
  const folder = options.directory ?? (options.session ? join(options.session.dir, 'artifacts') : join(tmpdir(), 'dsh-artifacts'))
  const stem = options.stem.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 80) || 'artifact'
  const name = `${stem}-${randomBytes(4).toString('hex')}.${options.extension.replace(/[^A-Za-z0-9]/g, '') || 'txt'}`
  const file = join(folder, name)
  const partial = join(folder, `.${name}.partial`)
  const bytes = Buffer.from(options.untrustedSource === undefined ? content : `${fenceUntrusted(content, options.untrustedSource)}\n`, 'utf8')
  // What exists of this write so far, removed if it fails at any step.
  const made: string[] = []
  try {
    await mkdir(dirname(folder), { recursive: true, mode: 0o700 })
    await ensurePrivateFolder(folder, 'The artifacts folder', { create: true })
    const handle = await openPrivateFile(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 'The artifact file')
    made.push(partial)
    try {
      await handle.writeFile(bytes)
      await handle.datasync()
    } finally {
      await handle.close()
    }
    await link(partial, file)
    made.push(file)
    await rm(partial)
    made.shift()
    await syncFolder(folder)
  } catch (error: any) {
    await Promise.all(made.map((path) => rm(path, { force: true }).catch(() => {})))
    const why = CodedError.is(error) ? error.message : (error?.message ?? error?.code ?? String(error))
    const fix = CodedError.is(error) ? '' : ` Nothing of it was kept. Fix: ${fixFor(error?.code, folder)}.`
    throw new ArtifactWriteError(`The complete content (${bytes.length} bytes) could not be written to ${file}: ${why}`.replace(/([^.])$/, '$1.') + fix, {
      cause: error,
      details: { path: file, bytes: bytes.length },
    })
  }
  return { path: file, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
}

function fixFor(code: unknown, folder: string): string {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `free space on the disk that holds ${folder} (or point the artifact folder at one with room) and try again`
    case 'EFBIG':
      return `the file is larger than this process may write (ulimit -f); raise that limit and try again`
    default:
      return `check ${folder} and try again`
  }
}
