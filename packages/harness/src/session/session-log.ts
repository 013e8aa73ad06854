import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { EventVisibility, JsonValue, SessionEvent, SessionHandle } from 'dsh-host'
import { findNonJson } from '../json-value.js'

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/
const EVENT_TYPE = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)*$/

export function assertSessionId(id: string): void {
  if (typeof id !== 'string' || !SESSION_ID.test(id) || id.includes('..')) {
    throw new Error(`"${id}" is not a session id: use 1 to 128 letters, digits, dots, dashes or underscores, starting with a letter or digit.`)
  }
}

export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-')
  return `${stamp}-${randomBytes(4).toString('hex')}`
}

export const EVENTS_FILE = 'events.jsonl'

/** Reads a session log; a torn last line (a crash mid-write) is reported, not hidden. */
export async function readEvents(logPath: string): Promise<SessionEvent[]> {
  const text = await readFile(logPath, 'utf8')
  const events: SessionEvent[] = []
  const lines = text.split('\n')
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]
    if (!line) continue
    try {
      events.push(JSON.parse(line))
    } catch {
      throw new Error(`${logPath}:${index + 1} is not a JSON line; the log is damaged at that point.`)
    }
  }
  return events
}

/**
 * One session: an append-only JSONL log, `seq` and `time` stamped here, each
 * event written and fsync'd before `append` resolves.
 */
export class Session implements SessionHandle {
  readonly logPath: string
  private seq: number
  private queue: Promise<unknown> = Promise.resolve()

  private constructor(readonly id: string, readonly dir: string, lastSeq: number) {
    this.logPath = join(dir, EVENTS_FILE)
    this.seq = lastSeq
  }

  /** Opens the session `id` under `root`, creating it when `create` allows. */
  static async open(root: string, id: string, options: { create: boolean }): Promise<Session> {
    assertSessionId(id)
    const dir = join(root, id)
    const logPath = join(dir, EVENTS_FILE)
    let lastSeq = 0
    try {
      const events = await readEvents(logPath)
      lastSeq = events.length ? events[events.length - 1].seq : 0
    } catch (error: any) {
      if (error?.code !== 'ENOENT') throw error
      if (!options.create) throw new Error(`There is no session "${id}" under ${root}.`)
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const handle = await open(logPath, 'a', 0o600)
      await handle.close()
    }
    return new Session(id, dir, lastSeq)
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
    const next = this.queue.then(async () => {
      const event: SessionEvent = { seq: this.seq + 1, time: new Date().toISOString(), type, visibility, data }
      const handle = await open(this.logPath, 'a', 0o600)
      try {
        await handle.appendFile(JSON.stringify(event) + '\n', 'utf8')
        await handle.datasync()
      } finally {
        await handle.close()
      }
      this.seq = event.seq
      return event
    })
    this.queue = next.catch(() => {})
    return next
  }

  read(): Promise<SessionEvent[]> {
    return readEvents(this.logPath)
  }
}
