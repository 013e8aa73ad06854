import { type ArtifactRef, ArtifactWriteError, writeArtifact, type WriteArtifactOptions } from 'dsh-host'
import { WebError } from './errors.js'

/**
 * The contract's artifact writer for the web family: the same file, its
 * failure as WEB_ARTIFACT_WRITE_FAILED so a provider's errors stay in the
 * closed union.
 */
export async function writeWebArtifact(content: string, options: WriteArtifactOptions): Promise<ArtifactRef> {
  try {
    return await writeArtifact(content, options)
  } catch (error) {
    if (ArtifactWriteError.is(error)) throw new WebError('WEB_ARTIFACT_WRITE_FAILED', error.message, { cause: error, details: error.details })
    throw error
  }
}
