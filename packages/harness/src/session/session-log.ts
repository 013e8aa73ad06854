import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import type { EventVisibility, JsonValue, SeenUrls, SessionEvent, SessionHandle } from 'dsh-host'
import { DEFAULT_LOCK_TIMEOUT_MS, withFileLock } from '../file-lock.js'
import { ensurePrivateFolder, openPrivateFile, syncFolder } from 'dsh-host'
import { assertPrivateHome } from '../private-home.js'
import { findNonJson } from '../json-value.js'
import { ARTIFACTS_FOLDER, capEventData, DEFAULT_MAX_EVENT_BYTES, removeEventArtifacts, writeEventArtifacts } from './event-artifacts.js'
import { type LogReport, readLog } from './log-reader.js'
import { lastSeq, repairTail, writeWhole } from './log-tail.js'
import { SessionError, writeFailure } from './session-errors.js'

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/
const EVENT_TYPE = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*$/

export function assertSessionId(id: string): void {
  if (typeof id !== 'string' || !SESSION_ID.test(id) || id.includes('..')) {
    throw new SessionError('SESSION_INVALID_ID', `"${id}" is not a session id: use 1 to 128 letters, digits, dots, dashes or underscores, starting with a letter or digit.`)
  }
}

export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-')
  return `${stamp}-${randomBytes(4).toString('hex')}`
}

export const EVENTS_FILE = 'events.jsonl'

export interface SessionLogOptions {
  /** The largest line an event may take in the log; larger values go to artifacts (default 64 KiB). */
  maxEventBytes?: number
  /** How long an append waits for another process's append (default 10 s). */
  lockTimeoutMs?: number
  /** Told of each event once it is on disk (what it throws is ignored). */
  onAppend?(event: SessionEvent): void
  /** The session's seen URLs (the provenance gate's), shared by every handle of the id in this process. */
  seenUrls?: SeenUrls
}

/**
 * Every event the session can read, and what it could not. A torn last line
 * (never acknowledged) and a last line without its newline are tolerated;
 * a damaged line elsewhere is a `SESSION_LOG_DAMAGED` error, since the
 * history would silently miss an event (`inspect` shows the rest).
 */
export function eventsOf(report: LogReport, logPath: string): SessionEvent[] {
  const damaged = report.problems.filter((problem) => problem.kind === 'damaged' || problem.kind === 'too-long')
  if (damaged.length) {
    throw new SessionError('SESSION_LOG_DAMAGED', `The session log ${logPath} is damaged: ${damaged.map((problem) => problem.message).join(' ')} \`dsh session show\` shows every readable event and where the damage is.`, {
      details: { path: logPath, lines: damaged.map((problem) => String(problem.line)) },
    })
  }
  return report.events
}

/** The sessions folder and the session's own folder under `home`, checked; false when missing and not created. */
async function sessionFolder(home: string, dir: string, create: boolean): Promise<boolean> {
  if (!(await assertPrivateHome(home, { create }))) return false
  if (!(await ensurePrivateFolder(join(home, 'sessions'), 'The sessions folder', { create }))) return false
  return ensurePrivateFolder(dir, 'The session folder', { create })
}

/**
 * One session: an append-only JSONL log. Each append takes the session's
 * cross-process lock, repairs a torn tail, reads the last seq from the file,
 * writes one whole line and fsyncs it before it resolves; a failed write is
 * cut back off, so the log stays readable and appendable.
 */
export class Session implements SessionHandle {
  readonly logPath: string
  readonly maxEventBytes: number
  readonly lockTimeoutMs: number
  private readonly onAppend?: (event: SessionEvent) => void
  readonly seenUrls?: SeenUrls
  private queue: Promise<unknown> = Promise.resolve()

  private constructor(readonly id: string, readonly dir: string, options: SessionLogOptions) {
    this.logPath = join(dir, EVENTS_FILE)
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES
    this.lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS
    this.onAppend = options.onAppend
    this.seenUrls = options.seenUrls
  }

  /** Opens the session `id` under `<home>/sessions`, creating it when `create` allows. */
  static async open(home: string, id: string, options: { create: boolean } & SessionLogOptions): Promise<Session> {
    assertSessionId(id)
    const dir = join(home, 'sessions', id)
    const logPath = join(dir, EVENTS_FILE)
    const missing = () => new SessionError('SESSION_NOT_FOUND', `There is no session "${id}" under ${join(home, 'sessions')}.`)
    if (!(await sessionFolder(home, dir, options.create))) throw missing()
    let handle
    try {
      handle = await openPrivateFile(logPath, constants.O_RDONLY | (options.create ? constants.O_CREAT : 0), 'The session log')
    } catch (error: any) {
      if (error?.code === 'ENOENT') throw missing()
      throw error
    }
    await handle.close()
    if (options.create) await syncFolder(dir)
    const artifacts = await lstat(join(dir, ARTIFACTS_FOLDER)).catch(() => undefined)
    if (artifacts) await ensurePrivateFolder(join(dir, ARTIFACTS_FOLDER), 'The session artifacts folder', { create: false })
    return new Session(id, dir, options)
  }

  append(type: string, data: JsonValue, options: { visibility?: EventVisibility } = {}): Promise<SessionEvent> {
    if (typeof type !== 'string' || !EVENT_TYPE.test(type)) {
      return Promise.reject(new TypeError(`"${String(type)}" is not an event type: use lower-case words joined by "/", like "tool/call".`))
    }
    const visibility = options.visibility ?? 'log'
    if (visibility !== 'surface' && visibility !== 'log') {
      return Promise.reject(new TypeError(`Event visibility must be "surface" or "log", not "${String(visibility)}".`))
    }
    const problem = findNonJson(data, 'data')
    if (problem) return Promise.reject(new TypeError(`Session events take JSON data only: ${problem}.`))
    const next = this.queue.then(() => this.write(type, visibility, data))
    this.queue = next.catch(() => {})
    return next.then((event) => {
      try {
        this.onAppend?.(event)
      } catch {
        // A listener's failure is its own: the event is written.
      }
      return event
    })
  }

  private async write(type: string, visibility: EventVisibility, data: JsonValue): Promise<SessionEvent> {
    const envelope = { seq: Number.MAX_SAFE_INTEGER, time: new Date().toISOString(), type, visibility, data: null, externalized: [] as string[] }
    const capped = capEventData(data, Buffer.byteLength(JSON.stringify(envelope)) + 1, this.maxEventBytes)
    try {
      await writeEventArtifacts(this.dir, capped.files)
    } catch (error) {
      await removeEventArtifacts(this.dir, capped.files)
      throw writeFailure(error, `Writing the large values of a ${type} event to ${join(this.dir, ARTIFACTS_FOLDER)}`, this.dir)
    }
    try {
      return await withFileLock(this.logPath, () => this.appendLine(type, visibility, capped.data, capped.externalized), {
        timeoutMs: this.lockTimeoutMs,
        what: `The session log ${this.logPath}`,
      })
    } catch (error) {
      await removeEventArtifacts(this.dir, capped.files)
      throw writeFailure(error, `Appending a ${type} event to ${this.logPath}`, this.dir)
    }
  }

  /** Under the lock: repair the tail, continue from the file's last seq, write one line whole or not at all. */
  private async appendLine(type: string, visibility: EventVisibility, data: JsonValue, externalized: string[]): Promise<SessionEvent> {
    const handle = await openPrivateFile(this.logPath, constants.O_RDWR | constants.O_APPEND, 'The session log')
    try {
      const size = await repairTail(handle, (await handle.stat()).size, this.logPath)
      const event: SessionEvent = { seq: (await lastSeq(handle, size)) + 1, time: new Date().toISOString(), type, visibility, data }
      const line = Buffer.from(JSON.stringify(externalized.length ? { ...event, externalized } : event) + '\n', 'utf8')
      try {
        await writeWhole(handle, line)
        await handle.datasync()
      } catch (error) {
        // Cut back whatever part of the line got written: the log stays as it was.
        await handle.truncate(size).then(() => handle.datasync()).catch(() => {})
        throw error
      }
      return externalized.length ? ({ ...event, externalized } as SessionEvent) : event
    } finally {
      await handle.close()
    }
  }

  read(): Promise<SessionEvent[]> {
    return readLog(this.logPath).then((report) => eventsOf(report, this.logPath))
  }

  /** Every readable event and a report of torn, unterminated or damaged lines. */
  inspect(): Promise<LogReport> {
    return readLog(this.logPath)
  }
}
