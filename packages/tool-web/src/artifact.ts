import type { ArtifactRef, ToolCallContext } from 'dsh-host'
import { writeWebArtifact } from 'dsh-web'

/**
 * Where the web tools keep an output too long to show inline (the contract's
 * `limitOutput` cuts it and closes its fences): a markdown file named after
 * the tool and the call, in the call's session folder, a failure as
 * WEB_ARTIFACT_WRITE_FAILED.
 */
export function saveOutput(tool: string, call: Pick<ToolCallContext, 'callId' | 'session'>): (content: string) => Promise<ArtifactRef> {
  return (content) => writeWebArtifact(content, { session: call.session, stem: `${tool}-${call.callId}`, extension: 'md' })
}
