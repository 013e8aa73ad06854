import { createHash } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebError } from 'dsh-web'
import type { ArtifactRef, FetchFormat, SessionHandle } from 'dsh-web'

const EXTENSIONS: Record<FetchFormat, string> = { markdown: 'md', text: 'txt', html: 'html' }

/**
 * Writes the whole converted text to a file: below the session's folder when
 * there is a session, else below the system temp dir. A failure is an error,
 * never a silent drop.
 */
export async function writeArtifact(
  text: string,
  format: FetchFormat,
  options: { session?: SessionHandle; callId?: string; directory?: string },
): Promise<ArtifactRef> {
  const data = Buffer.from(text, 'utf8')
  const sha256 = createHash('sha256').update(data).digest('hex')
  const directory = options.directory ?? (options.session ? join(options.session.dir, 'artifacts') : join(tmpdir(), 'dsh-web-fetch'))
  const stem = (options.callId ?? new Date().toISOString()).replace(/[^\w.-]+/g, '-')
  const path = join(directory, `web-fetch-${stem}-${sha256.slice(0, 12)}.${EXTENSIONS[format]}`)
  try {
    await mkdir(directory, { recursive: true })
    await writeFile(path, data)
  } catch (cause) {
    throw new WebError('WEB_ARTIFACT_WRITE_FAILED', `The complete text (${data.length} bytes) could not be written to ${path}: ${(cause as Error).message}.`, {
      cause,
    })
  }
  return { path, bytes: data.length, sha256 }
}
