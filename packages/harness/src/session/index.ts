import { type Context, Schema } from 'cordis'
import { SEEN_URLS_MAX } from 'dsh-host'
import { DEFAULT_LEASE_MS, DEFAULT_LOCK_TIMEOUT_MS, MAX_LEASE_MS } from '../file-lock.js'
import { defaultHome } from '../home.js'
import { DEFAULT_MAX_EVENT_BYTES, MIN_MAX_EVENT_BYTES } from './event-artifacts.js'
import { type SessionConfig, SessionService } from './session-service.js'

export const name = 'dsh-harness/session'

export type Config = SessionConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  home: Schema.string().default(defaultHome()).description('Folder whose sessions/ holds the session logs. Defaults to $DSH_HOME, else ~/.dsh.'),
  maxEventBytes: Schema.natural().min(MIN_MAX_EVENT_BYTES).max(16 * 1024 * 1024).default(DEFAULT_MAX_EVENT_BYTES)
    .description('The largest line one event may take in the log (bytes); larger string values are moved to files in the session\'s artifacts/ folder and referenced.'),
  lockTimeoutMs: Schema.natural().role('ms').default(DEFAULT_LOCK_TIMEOUT_MS)
    .description('How long an append waits for another process appending to the same session before it fails with FILE_LOCK_TIMEOUT.'),
  leaseMs: Schema.natural().role('ms').min(1000).max(MAX_LEASE_MS).default(DEFAULT_LEASE_MS)
    .description('How long a session this process opened stays held without a renewal; the process renews it every third of this while it runs, and dsh session prune never removes a held session. A holder killed with kill -9 holds nothing from then on (on this host; on another, once this has passed).'),
  seenUrlsMax: Schema.natural().min(1).max(1_000_000).default(SEEN_URLS_MAX)
    .description('How many URLs each session remembers as seen (search results, links of fetched pages, redirects, URLs the user gave: what web_fetch\'s provenance gate admits) before it drops the oldest, which it records once in the session log. Kept in this process\'s memory.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(SessionService, config)
}


export { SessionService }
export { Session, assertSessionId } from './session-log.js'
export { SessionError } from './session-errors.js'
export type { SessionErrorCode } from './session-errors.js'
export type { LogProblem, LogProblemKind, LogReport } from './log-reader.js'
export type { ArtifactReference } from './event-artifacts.js'
