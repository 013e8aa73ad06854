import { createReadStream } from 'node:fs'
import { lstat, readdir, readlink, realpath, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ensurePrivateFolder, UnsafePathError } from 'dsh-host'
import { assertPrivateHome } from '../private-home.js'
import { FileLockError, type LeaseHolder, withFileLock } from '../file-lock.js'
import { sessionHolders } from './session-leases.js'
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

/**
 * The sessions folder, checked as list and prune need it: a real folder
 * (not a symbolic link) whose real path is `<real $DSH_HOME>/sessions`, so
 * nothing they read or remove is outside `$DSH_HOME`. Undefined when there
 * is no sessions folder.
 */
async function sessionsRoot(home: string): Promise<{ root: string; real: string } | undefined> {
  await assertPrivateHome(home)
  const root = join(home, 'sessions')
  if (!(await ensurePrivateFolder(root, 'The sessions folder', { create: false }))) return undefined
  const real = await realpath(root)
  const expected = join(await realpath(home), 'sessions')
  if (real !== expected) {
    throw new UnsafePathError(`The sessions folder ${root} resolves to ${real}, outside $DSH_HOME (${expected}); dsh lists and prunes only sessions under $DSH_HOME. Fix: move ${root} back into ${home}, or set DSH_HOME to the folder that holds it.`, { details: { path: root, realPath: real } })
  }
  return { root, real }
}

/** A session folder under the checked root: a real folder (not a link) whose real path is where it is listed. */
async function assertSessionFolder(root: { root: string; real: string }, name: string): Promise<void> {
  const dir = join(root.root, name)
  const info = await lstat(dir)
  if (info.isSymbolicLink()) {
    const target = await readlink(dir).catch(() => 'somewhere dsh cannot read')
    throw new UnsafePathError(`${dir} is a symbolic link (to ${target}), not a session folder; dsh session list and prune never follow one, so nothing outside $DSH_HOME is read or removed. Fix: remove the link (rm ${dir}) and run the command again.`, { details: { path: dir, target } })
  }
  const real = await realpath(dir)
  if (real !== join(root.real, name)) {
    throw new UnsafePathError(`The session folder ${dir} resolves to ${real}, outside ${root.real}; dsh refuses to touch it. Fix: move it away and run the command again.`, { details: { path: dir, realPath: real } })
  }
}

/**
 * The sessions folder's sessions, oldest start first. A sessions folder,
 * or a name in it, that is a symbolic link is refused with `UNSAFE_PATH`
 * (the fix in the message); a plain file there is not a session.
 */
export async function listSessions(home: string): Promise<SessionSummary[]> {
  const root = await sessionsRoot(home)
  return root ? listUnder(root) : []
}

async function listUnder(root: { root: string; real: string }): Promise<SessionSummary[]> {
  const found: SessionSummary[] = []
  for (const entry of await readdir(root.root, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) await assertSessionFolder(root, entry.name)
    if (!entry.isDirectory()) continue
    const summary = await summarise(join(root.root, entry.name), entry.name)
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
  /** Old enough, but a live process holds it open (its lease is current): left alone. */
  held: Array<SessionSummary & { heldBy: LeaseHolder[] }>
}

/** Thrown inside the lock to leave a held session alone. */
class Held {
  constructor(readonly holders: LeaseHolder[]) {}
}

/**
 * Removes the sessions whose log was last written before `before`. Each is
 * removed while holding its log's lock, so a session a live process is
 * writing to (it holds the lock) is never removed: it is reported in use;
 * and, under that lock, a session with a current lease (a live process
 * holds it open, idle or not) is reported held and left alone. Every
 * folder is checked again under the lock before it is removed: a real
 * folder whose real path is under `$DSH_HOME/sessions`. With `dryRun`,
 * nothing is removed and `removed` and `held` say what would be.
 */
export async function pruneSessions(home: string, before: Date, options: { dryRun?: boolean } = {}): Promise<PruneResult> {
  const result: PruneResult = { removed: [], inUse: [], held: [] }
  const root = await sessionsRoot(home)
  if (!root) return result
  for (const session of await listUnder(root)) {
    if (Date.parse(session.lastWritten) >= before.getTime()) continue
    const dir = join(root.root, session.id)
    if (options.dryRun) {
      const holders = await sessionHolders(dir)
      if (holders.length) result.held.push({ ...session, heldBy: holders })
      else result.removed.push(session)
      continue
    }
    try {
      await withFileLock(join(dir, EVENTS_FILE), async () => {
        const holders = await sessionHolders(dir)
        if (holders.length) throw new Held(holders)
        await assertSessionFolder(root, session.id)
        await rm(dir, { recursive: true, force: true })
      }, { timeoutMs: 0, what: `The session log of ${session.id}` })
      result.removed.push(session)
    } catch (error) {
      if (error instanceof Held) result.held.push({ ...session, heldBy: error.holders })
      else if (error instanceof FileLockError) result.inUse.push(session)
      else throw error
    }
  }
  return result
}
