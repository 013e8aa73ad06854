import { constants } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { basename } from 'node:path'
import type { SessionEvent } from 'dsh-host'
import { openPrivateFile } from 'dsh-host'

/** A line longer than this is reported, not parsed (logs written before events were capped can hold them). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024

const CHUNK_BYTES = 1024 * 1024

/** Where torn bytes cut from the end of a log are kept: `events.jsonl.torn`. */
export const TORN_SUFFIX = '.torn'

export type LogProblemKind = 'torn' | 'unterminated' | 'damaged' | 'too-long' | 'torn-kept'

/** Something about a session log a reader should know; `message` says what it means and what happens next. */
export interface LogProblem {
  kind: LogProblemKind
  /** 1-based line number in events.jsonl (absent for `torn-kept`). */
  line?: number
  bytes: number
  message: string
}

export interface LogReport {
  events: SessionEvent[]
  problems: LogProblem[]
}

/** Whether a parsed line is an event as the session writes them. */
export function isEvent(value: any): value is SessionEvent {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    && Number.isSafeInteger(value.seq) && typeof value.type === 'string' && typeof value.time === 'string'
}

function parseEvent(bytes: Buffer): SessionEvent | undefined {
  try {
    const value = JSON.parse(bytes.toString('utf8'))
    return isEvent(value) ? value : undefined
  } catch {
    return undefined
  }
}

function mebibytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`
}

/**
 * Reads a session log line by line, never the whole file at once: every
 * event it can read, and a report of the rest. A torn last line (a write
 * that never completed: it was never acknowledged) is left out and reported;
 * a last line without its final newline that is a whole event is shown and
 * reported; a damaged or oversized line elsewhere is reported with its line
 * number and the lines after it are still read.
 */
export async function readLog(logPath: string): Promise<LogReport> {
  const handle = await openPrivateFile(logPath, constants.O_RDONLY, 'The session log')
  const events: SessionEvent[] = []
  const problems: LogProblem[] = []
  let line = 0
  let parts: Buffer[] = []
  let pending = 0
  const finishLine = (last: Buffer) => {
    line++
    const bytes = pending + last.length
    if (bytes > MAX_LINE_BYTES) {
      problems.push({ kind: 'too-long', line, bytes, message: `line ${line} is ${mebibytes(bytes)}, over the ${mebibytes(MAX_LINE_BYTES)} a line may have, and is not shown (an event written before events were capped); the other lines are.` })
    } else if (bytes > 0) {
      const whole = parts.length ? Buffer.concat([...parts, last]) : last
      const event = parseEvent(whole)
      if (event) events.push(event)
      else problems.push({ kind: 'damaged', line, bytes, message: `line ${line} (${bytes} bytes) is not a JSON event: the log is damaged there; the other lines are shown.` })
    }
    parts = []
    pending = 0
  }
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES)
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null)
      if (!bytesRead) break
      const chunk = buffer.subarray(0, bytesRead)
      let start = 0
      for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
        finishLine(chunk.subarray(start, newline))
        start = newline + 1
      }
      const rest = chunk.subarray(start)
      if (pending + rest.length <= MAX_LINE_BYTES) parts.push(Buffer.from(rest))
      else parts = []
      pending += rest.length
    }
  } finally {
    await handle.close()
  }
  if (pending > 0) {
    line++
    const event = pending <= MAX_LINE_BYTES ? parseEvent(Buffer.concat(parts)) : undefined
    if (event) {
      events.push(event)
      problems.push({ kind: 'unterminated', line, bytes: pending, message: `line ${line}, the last, has no final newline; it is shown, and the next append ends it with one.` })
    } else {
      problems.push({ kind: 'torn', line, bytes: pending, message: `line ${line}, the last (${pending} bytes), is torn: a write that never completed (a crash or a full disk), never acknowledged, so it is not shown. The next append moves it to ${basename(logPath)}${TORN_SUFFIX} beside the log.` })
    }
  }
  const kept = await lstat(logPath + TORN_SUFFIX).catch(() => undefined)
  if (kept?.isFile() && kept.size > 0) {
    problems.push({ kind: 'torn-kept', bytes: kept.size, message: `${kept.size} bytes of torn lines, cut from the end of the log when it was repaired, are kept in ${logPath + TORN_SUFFIX}.` })
  }
  return { events, problems }
}
