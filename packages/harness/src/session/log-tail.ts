import { constants } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { openPrivateFile } from 'dsh-host'
import { isEvent, MAX_LINE_BYTES, TORN_SUFFIX } from './log-reader.js'

/**
 * What the writer does at the end of the log, under the session's lock:
 * repair a torn tail, find the last seq, append one whole line or nothing.
 */

const BACK_CHUNK = 8 * 1024
const NEWLINE = 0x0a

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  let done = 0
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done)
    if (!bytesRead) break
    done += bytesRead
  }
  return buffer.subarray(0, done)
}

/** Offset just after the last newline before `end` (0 when there is none). */
async function lineStart(handle: FileHandle, end: number): Promise<number> {
  let position = end
  while (position > 0) {
    const from = Math.max(0, position - BACK_CHUNK)
    const chunk = await readAt(handle, from, position - from)
    const newline = chunk.lastIndexOf(NEWLINE)
    if (newline !== -1) return from + newline + 1
    position = from
  }
  return 0
}

/** Writes all of `bytes` at the end (the handle is opened `O_APPEND`), looping over short writes. */
export async function writeWhole(handle: FileHandle, bytes: Buffer): Promise<void> {
  let done = 0
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, null)
    done += bytesWritten
  }
}

/**
 * Makes the log end with a newline, so the next event never gets glued to a
 * partial line. A last line that is a whole event is ended with a newline; a
 * torn one is appended to `<log>.torn` (made durable first) and then cut
 * from the log. Returns the log's size afterwards.
 */
export async function repairTail(handle: FileHandle, size: number, logPath: string): Promise<number> {
  if (size === 0 || (await readAt(handle, size - 1, 1))[0] === NEWLINE) return size
  const start = await lineStart(handle, size)
  const tail = await readAt(handle, start, size - start)
  let whole = false
  if (tail.length <= MAX_LINE_BYTES) {
    try {
      whole = isEvent(JSON.parse(tail.toString('utf8')))
    } catch {}
  }
  if (whole) {
    await writeWhole(handle, Buffer.from('\n'))
    await handle.datasync()
    return size + 1
  }
  const kept = await openPrivateFile(logPath + TORN_SUFFIX, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 'The torn-lines file')
  try {
    await writeWhole(kept, Buffer.concat([tail, Buffer.from('\n')]))
    await kept.datasync()
  } finally {
    await kept.close()
  }
  await handle.truncate(start)
  await handle.datasync()
  return start
}

const HEAD = /^\{"seq":(\d{1,16}),/

/**
 * The seq of the last event in a log that ends with a newline, read from
 * the end: the first line from the end that is an event (0 for none).
 * The writer puts `seq` first, so a line's head is enough, however long it is.
 */
export async function lastSeq(handle: FileHandle, size: number): Promise<number> {
  // The usual case in one read: the last line is short and starts with its seq.
  const from = Math.max(0, size - BACK_CHUNK)
  const chunk = await readAt(handle, from, size - from)
  const start = chunk.lastIndexOf(NEWLINE, chunk.length - 2) + 1
  if (start > 0 || from === 0) {
    const head = HEAD.exec(chunk.subarray(start, start + 32).toString('latin1'))
    if (head) return Number(head[1])
  }
  let end = size
  while (end > 0) {
    const start = await lineStart(handle, end - 1)
    const length = end - 1 - start
    const head = HEAD.exec((await readAt(handle, start, Math.min(length, 32))).toString('latin1'))
    if (head) return Number(head[1])
    if (length > 0 && length <= MAX_LINE_BYTES) {
      try {
        const value = JSON.parse((await readAt(handle, start, length)).toString('utf8'))
        if (isEvent(value)) return value.seq
      } catch {}
    }
    end = start
  }
  return 0
}
