import type { LeaseHolder } from '../file-lock.js'
import { parseLifetime } from './lifetime.js'
import type { SessionService } from '../session/index.js'
import { listSessions, pruneSessions, type SessionSummary } from '../session/session-catalog.js'
import { boot, type GlobalOptions, type Output } from './commands.js'
import { escapeForTerminal } from './terminal.js'

/** The folder the composition's session row keeps sessions under. */
async function sessionsHome(options: GlobalOptions, io: Output): Promise<string> {
  const composition = await boot(options, io)
  try {
    const sessions = composition.ctx.get('session') as SessionService | undefined
    if (!sessions) throw new Error('The composition provides no "session" service; mount its row to use this command.')
    return sessions.config.home
  } finally {
    await composition.dispose()
  }
}

/** `dsh session list [--token NAME]`: id, started, events, size. */
export async function runSessionList(options: GlobalOptions, flags: { token?: string }, io: Output): Promise<number> {
  const home = await sessionsHome(options, io)
  let sessions = await listSessions(home)
  // dsh mcp --http records each token's calls in sessions whose first event names the token (mcp/session-start).
  if (flags.token !== undefined) sessions = sessions.filter((session) => session.mcp?.transport === 'http' && session.mcp.token === flags.token)
  if (options.json) io.out(JSON.stringify({ root: `${home}/sessions`, sessions }, null, 2))
  else io.out(renderSessions(sessions, flags.token))
  return 0
}

/** `dsh session prune --older-than AGE [--dry-run]`. */
export async function runSessionPrune(options: GlobalOptions, flags: { olderThan: string; dryRun: boolean }, io: Output): Promise<number> {
  const age = parseLifetime(flags.olderThan, '--older-than')
  const home = await sessionsHome(options, io)
  const before = new Date(Date.now() - age)
  const { removed, inUse, held } = await pruneSessions(home, before, { dryRun: flags.dryRun })
  if (options.json) {
    io.out(JSON.stringify({ before: before.toISOString(), dryRun: flags.dryRun, removed, inUse, held }, null, 2))
    return 0
  }
  const verb = flags.dryRun ? 'would remove' : 'removed'
  const lines = removed.map((session) => `${verb} ${session.id}  (last written ${session.lastWritten}, ${session.events} events, ${size(session.bytes)})`)
  for (const session of inUse) lines.push(`kept ${session.id}: another process is writing to it (its lock is held)`)
  for (const session of held) lines.push(`kept ${session.id}: held open by ${session.heldBy.map(describeHolder).join(', ')}`)
  const freed = removed.reduce((sum, session) => sum + session.bytes, 0)
  lines.push(`${removed.length ? `${flags.dryRun ? 'Would remove' : 'Removed'} ${removed.length} session(s), ${size(freed)}` : 'Nothing to remove'}: sessions last written before ${before.toISOString()}.${flags.dryRun ? ' Nothing was removed (--dry-run).' : ''}`)
  io.out(escapeForTerminal(lines.join('\n')))
  return 0
}

function renderSessions(sessions: SessionSummary[], token: string | undefined): string {
  if (!sessions.length) return token === undefined ? 'No sessions.' : `No sessions of the token "${token}".`
  const width = Math.max(...sessions.map((session) => session.id.length), 2)
  const lines = [`${'id'.padEnd(width)}  ${'started'.padEnd(24)}  ${'events'.padStart(6)}  ${'size'.padStart(9)}  via`]
  for (const session of sessions) {
    const via = session.mcp ? `mcp ${session.mcp.transport}${session.mcp.token ? ` token ${session.mcp.token}` : ''}` : ''
    lines.push(`${session.id.padEnd(width)}  ${(session.started ?? '-').padEnd(24)}  ${String(session.events).padStart(6)}  ${size(session.bytes).padStart(9)}  ${via}`.trimEnd())
  }
  return escapeForTerminal(lines.join('\n'))
}

function describeHolder(holder: LeaseHolder): string {
  const who = holder.pid ? `process ${holder.pid}${holder.local ? '' : ` on host ${holder.host}`}` : 'a lease dsh cannot read'
  return `${who} (lease until ${holder.expires.toISOString()}, renewed while it runs)`
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}
