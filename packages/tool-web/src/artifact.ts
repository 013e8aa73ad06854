import type { ArtifactRef, ToolCallContext } from 'dsh-host'
import { writeWebArtifact } from 'dsh-web'
import { closeOpenFences } from './untrusted-fence.js'

export interface LimitedOutput {
  content: string
  /** Set when the complete output went to a file. */
  artifact?: ArtifactRef
}

export interface LimitOptions {
  /** The tool whose output this is, e.g. web_search: the file name starts with it. */
  tool: string
  /** The call: its id names the file, its session holds it. */
  call: Pick<ToolCallContext, 'callId' | 'session'>
  /** Characters of model-facing text allowed inline. */
  threshold: number
}

/** How much of an over-threshold output the model sees inline. */
export function headLength(threshold: number): number {
  return Math.max(200, Math.min(4_000, Math.floor(threshold / 4)))
}

/**
 * Returns the content as it is when it fits the threshold. Above it, writes
 * the complete content to an artifact and returns a short head, cut at a line
 * end, followed by the path, size and SHA-256 of the file.
 */
export async function limitOutput(content: string, options: LimitOptions): Promise<LimitedOutput> {
  if (content.length <= options.threshold) return { content }
  // The seam's writer: under the session's artifacts/ folder, else a temp folder; WEB_ARTIFACT_WRITE_FAILED on failure.
  const artifact = await writeWebArtifact(content, { session: options.call.session, stem: `${options.tool}-${options.call.callId}`, extension: 'md' })
  const limit = headLength(options.threshold)
  let cut = content.lastIndexOf('\n', limit)
  if (cut < limit / 2) {
    cut = limit
    const code = content.charCodeAt(cut - 1)
    if (code >= 0xd800 && code <= 0xdbff) cut--
  }
  const head = content.slice(0, cut)
  const closed = closeOpenFences(head)
  const notice =
    `[The complete output is ${content.length} characters, above the inline limit of ${options.threshold}, ` +
    `so only its first ${head.length} characters are shown above. Nothing was left out of the file: ` +
    `${artifact.path} (${artifact.bytes} bytes, SHA-256 ${artifact.sha256}).]`
  return { content: `${closed}\n\n${notice}`, artifact }
}
