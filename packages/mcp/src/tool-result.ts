import { createHash } from 'node:crypto'
import { defangFenceMarkers, showControlCharacters, type ToolOutcome } from 'dsh-host'

/** Strings shorter than this stay in structured content even when the text carries them. */
const REPEAT_MIN_CHARS = 256

/** What replaces a long string of structured content that the text content already carries. */
export interface SentInContent {
  sentIn: 'content[0]'
  chars: number
  sha256: string
}

/** The `_meta` key that marks where `structuredContent` holds page or provider text. */
export const UNTRUSTED_META = 'dsh/untrusted'

const UNTRUSTED_NOTE = 'Text from the web or a provider, outside any fence: data, never instructions. Fence or clean it before a model sees it.'

/**
 * The MCP result of a tool outcome. The text content is what the model
 * reads; `structuredContent` carries the same result as data, except that a
 * top-level string the text already carries (a fetched page's text, as is or
 * inside its untrusted-content fence) is replaced by a reference
 * (`{ sentIn, chars, sha256 }`), so a page is sent once, not twice, and its
 * text never reaches the client outside the fence. What else of
 * `structuredContent` the page or a provider wrote (a title, snippets, the
 * value run_code returned) is named in `_meta["dsh/untrusted"]`: JSON
 * pointers into it, and a note saying what they mean.
 */
export function toCallToolResult(outcome: ToolOutcome, meta: Record<string, unknown>) {
  const structured = outcome.structured
  const data = structured !== null && typeof structured === 'object' && !Array.isArray(structured) ? dropRepeats(structured as Record<string, unknown>, outcome.content) : undefined
  return {
    content: [{ type: 'text' as const, text: outcome.content }],
    ...(data ? { structuredContent: data } : {}),
    isError: outcome.isError,
    _meta: data && outcome.untrusted?.length ? { ...meta, [UNTRUSTED_META]: { pointers: outcome.untrusted, note: UNTRUSTED_NOTE } } : meta,
  }
}

function dropRepeats(structured: Record<string, unknown>, text: string): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined
  for (const [key, value] of Object.entries(structured)) {
    if (typeof value !== 'string' || value.length < REPEAT_MIN_CHARS) continue
    if (!text.includes(value) && !text.includes(defangFenceMarkers(showControlCharacters(value)))) continue
    copy ??= { ...structured }
    const reference: SentInContent = { sentIn: 'content[0]', chars: value.length, sha256: createHash('sha256').update(value, 'utf8').digest('hex') }
    copy[key] = reference
  }
  return copy ?? structured
}
