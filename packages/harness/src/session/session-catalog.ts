import { createReadStream } from 'node:fs'
import { lstat, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { assertPrivateHome } from 'dsh-host'
import { FileLockError, withFileLock } from '../file-lock.js'
import { EVENTS_FILE } from './session-log.js'

/** One session as `dsh session list` shows it. */
export interface SessionSummary {
  id: string
  /** The time of its first event; null for an empty log. */
  started: string | null
  /** When its log was last written (the file's modification time). */
  lastWritten: string
  /** Complete lines in its log. */
  events: number
  /** Bytes of its folder: the log and its artifacts. */
  bytes: number
  /** For a session `dsh mcp` started: its transport and, over HTTP, the token's name (null without auth). */
  mcp?: { transport: string; token: string | null }
}

/** The sessions folder's sessions, oldest start first; a name that is not a folder (a symbolic link, a file) is not a session. */
export async function listSessions(home: string): Promise<SessionSummary[]> {
  await assertPrivateHome(home)
  const root = join(home, 'sessions')
  let entries
  try {
    entries = await readdir(root, { withFileTypes: true })
  } catch (error: any) {
    if (error?.code === 'ENOENT') return []
    throw error
  }
  const found: SessionSummary[] = []
  for (const entry of entries) {
    if (!entry.isDirectory()) continue
    const summary = await summarise(join(root, entry.name), entry.name)
    if (summary) found.push(summary)
  }
  return found.sort((a, b) => (a.started ?? a.lastWritten).localeCompare(b.started ?? b.lastWritten) || a.id.localeCompare(b.id))
}

async function summarise(dir: string, id: string): Promise<SessionSummary | undefined> {
  const log = join(dir, EVENTS_FILE)
  const info = await lstat(log).catch(() => undefined)
  if (!info?.isFile()) return undefined
  const { lines, first } = await scanLog(log)
  let started: string | null = null
  let mcp: SessionSummary['mcp']
  try {
    const event = first === undefined ? undefined : JSON.parse(first)
    if (typeof event?.time === 'string') started = event.time
    if (event?.type === 'mcp/session-start' && typeof event.data?.transport === 'string') {
      mcp = { transport: event.data.transport, token: typeof event.data.token === 'string' ? event.data.token : null }
    }
  } catch {
    // A torn or damaged first line: the session has no known start.
  }
  return { id, started, lastWritten: info.mtime.toISOString(), events: lines, bytes: await folderBytes(dir), ...(mcp ? { mcp } : {}) }
}

/** Counts complete lines and keeps the first (up to 64 KiB), reading the log as a stream. */
async function scanLog(path: string): Promise<{ lines: number; first?: string }> {
  let lines = 0
  let head = ''
  let headDone = false
  for await (const chunk of createReadStream(path)) {
    const buffer = chunk as Buffer
    for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) lines++
    if (!headDone) {
      head += buffer.toString('utf8')
      const end = head.indexOf('\n')
      if (end !== -1 || head.length > 65_536) {
        head = end === -1 ? head : head.slice(0, end)
        headDone = true
      }
    }
  }
  return { lines, first: headDone ? head : undefined }
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += await folderBytes(path)
    else if (entry.isFile()) total += (await lstat(path)).size
  }
  return total
}

export interface PruneResult {
  removed: SessionSummary[]
  /** Old enough, but another process held its log's lock: left alone. */
  inUse: SessionSummary[]
}

/**
 * Removes the sessions whose log was last written before `before`. Each is
 * removed while holding its log's lock, so a session a live process is
 * writing to (it holds the lock) is never removed: it is reported in use.
 * With `dryRun`, nothing is removed and `removed` says what would be.
 */
export async function pruneSessions(home: string, before: Date, options: { dryRun?: boolean } = {}): Promise<PruneResult> {
  const result: PruneResult = { removed: [], inUse: [] }
  for (const session of await listSessions(home)) {
    if (Date.parse(session.lastWritten) >= before.getTime()) continue
    if (options.dryRun) {
      result.removed.push(session)
      continue
    }
    const dir = join(home, 'sessions', session.id)
    try {
      await withFileLock(join(dir, EVENTS_FILE), () => rm(dir, { recursive: true, force: true }), { timeoutMs: 0, what: `The session log of ${session.id}` })
      result.removed.push(session)
    } catch (error) {
      if (!(error instanceof FileLockError)) throw error
      result.inUse.push(session)
    }
  }
  return result
}
