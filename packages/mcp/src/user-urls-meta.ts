import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { originOf, provenanceKey, SEEN_URL_MAX_CHARS, type SessionHandle } from 'dsh-host'

/**
 * The `_meta` key of a tools/call request under which a client names the
 * URLs its user gave (the server never sees the conversation): web_fetch's
 * provenance gate admits them in the connection's session from then on.
 */
export const USER_URLS_META = 'dsh/userUrls'

/** The most URLs one call may declare. */
export const USER_URLS_META_MAX = 100

/** The URLs a call's `_meta` declares (none when it has no such key), or the refusal of a value that is not a list of http(s) URLs. */
export function readUserUrlsMeta(meta: Record<string, unknown> | undefined): { urls: string[] } | { refused: CallToolResult } {
  const value = meta?.[USER_URLS_META]
  if (value === undefined) return { urls: [] }
  const refuse = (why: string) => ({ refused: invalid(`_meta["${USER_URLS_META}"] ${why}; give an array of at most ${USER_URLS_META_MAX} http(s) URLs, each as the user wrote it.`) })
  if (!Array.isArray(value)) return refuse(`is ${value === null ? 'null' : typeof value}, not an array`)
  if (value.length > USER_URLS_META_MAX) return refuse(`holds ${value.length} entries, more than ${USER_URLS_META_MAX}`)
  for (const [index, url] of value.entries()) {
    if (typeof url !== 'string') return refuse(`entry ${index} is ${url === null ? 'null' : typeof url}, not a string`)
    if (url.length > SEEN_URL_MAX_CHARS) return refuse(`entry ${index} is ${url.length} characters long, more than ${SEEN_URL_MAX_CHARS}`)
    if (!provenanceKey(url)) return refuse(`entry ${index} is not an http(s) URL`)
  }
  return { urls: value as string[] }
}

/** Declares the URLs as the user's in the session, and records that it did (their origins only: a user's URL may carry their own secrets). */
export async function declareUserUrls(session: SessionHandle, urls: string[]): Promise<CallToolResult | undefined> {
  if (!urls.length) return undefined
  if (!session.seenUrls) return invalid(`_meta["${USER_URLS_META}"] was given, but this server's sessions keep no seen URLs (its host does not implement SessionHandle.seenUrls), so nothing can be declared.`)
  const declared = session.seenUrls.declareUserUrls(urls)
  await session.append('mcp/user-urls', { count: declared.added, origins: [...new Set(urls.map(originOf))].slice(0, 20) }, { visibility: 'log' })
  return undefined
}

function invalid(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `Error [INVALID_ARGUMENT]: ${message}` }], isError: true, _meta: { 'dsh/errorCode': 'INVALID_ARGUMENT' } }
}
