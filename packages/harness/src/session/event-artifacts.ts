import { createHash, randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { JsonValue } from 'dsh-host'
import { ensurePrivateFolder, openPrivateFile, syncFolder } from 'dsh-host'
import { writeWhole } from './log-tail.js'

/**
 * Keeps each log line under the session's `maxEventBytes`: an event whose
 * line would be larger has its largest string values, and if that is not
 * enough its whole `data`, moved to files in `<session>/artifacts/`, and
 * keeps in their place a reference with the file's path (relative to the
 * session folder), size, SHA-256 and the first characters.
 */

export const DEFAULT_MAX_EVENT_BYTES = 64 * 1024
export const MIN_MAX_EVENT_BYTES = 4 * 1024
export const PREVIEW_CHARS = 500
export const ARTIFACTS_FOLDER = 'artifacts'

export interface ArtifactReference {
  [key: string]: JsonValue
  artifact: { path: string; bytes: number; sha256: string }
  preview: string
}

export interface PendingArtifact {
  name: string
  content: Buffer
}

export interface CappedData {
  data: JsonValue
  /** JSON Pointers (RFC 6901, relative to `data`; `""` is the whole of it) of the values moved to artifacts. */
  externalized: string[]
  files: PendingArtifact[]
}

interface StringLeaf {
  pointer: string
  holder: Record<string, JsonValue> | JsonValue[]
  key: string | number
  value: string
  bytes: number
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8')
const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

function collectStrings(value: JsonValue, pointer: string, found: StringLeaf[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (typeof item === 'string') found.push({ pointer: `${pointer}/${index}`, holder: value, key: index, value: item, bytes: bytesOf(item) })
      else collectStrings(item, `${pointer}/${index}`, found)
    })
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string') found.push({ pointer: `${pointer}/${escapePointer(key)}`, holder: value, key, value: item, bytes: bytesOf(item) })
      else if (item !== undefined) collectStrings(item, `${pointer}/${escapePointer(key)}`, found)
    }
  }
}

function reference(name: string, content: Buffer, previewSource: string, previewChars: number): ArtifactReference {
  return {
    artifact: { path: `${ARTIFACTS_FOLDER}/${name}`, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') },
    preview: Array.from(previewSource.slice(0, previewChars * 2)).slice(0, previewChars).join(''),
  }
}

function fileStem(pointer: string): string {
  return pointer.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'value'
}

/**
 * Plans the event's data so that `envelopeBytes` (the line without its
 * data) plus the data fit in `maxBytes`. Nothing is written here.
 */
export function capEventData(data: JsonValue, envelopeBytes: number, maxBytes: number): CappedData {
  let total = envelopeBytes + bytesOf(data)
  if (total <= maxBytes) return { data, externalized: [], files: [] }
  const id = randomBytes(4).toString('hex')
  const copy: JsonValue = JSON.parse(JSON.stringify(data))
  const leaves: StringLeaf[] = []
  if (typeof copy === 'string') leaves.push({ pointer: '', holder: [copy], key: 0, value: copy, bytes: bytesOf(copy) })
  else collectStrings(copy, '', leaves)
  leaves.sort((a, b) => b.bytes - a.bytes)
  const externalized: string[] = []
  const files: PendingArtifact[] = []
  let whole: JsonValue = copy
  for (const leaf of leaves) {
    if (total <= maxBytes) break
    const content = Buffer.from(leaf.value, 'utf8')
    const name = `event-${id}-${fileStem(leaf.pointer || 'data')}-${externalized.length + 1}.txt`
    const replacement = reference(name, content, leaf.value, PREVIEW_CHARS)
    const saved = leaf.bytes - bytesOf(replacement)
    if (saved <= 0) break
    if (leaf.pointer === '') whole = replacement
    else (leaf.holder as any)[leaf.key] = replacement
    total -= saved
    externalized.push(leaf.pointer)
    files.push({ name, content })
  }
  if (total <= maxBytes) return { data: whole, externalized, files }
  // Many small values: the whole data goes to one JSON file instead.
  const text = JSON.stringify(data)
  const content = Buffer.from(text, 'utf8')
  const name = `event-${id}-data.json`
  let previewChars = PREVIEW_CHARS
  let replacement = reference(name, content, text, previewChars)
  while (envelopeBytes + bytesOf(replacement) > maxBytes && previewChars > 0) {
    previewChars = Math.floor(previewChars / 2)
    replacement = reference(name, content, text, previewChars)
  }
  return { data: replacement, externalized: [''], files: [{ name, content }] }
}

/** Writes the planned files (0600, never through a link, made durable) into `<session>/artifacts/`. */
export async function writeEventArtifacts(sessionDir: string, files: PendingArtifact[]): Promise<void> {
  if (!files.length) return
  const folder = join(sessionDir, ARTIFACTS_FOLDER)
  await ensurePrivateFolder(folder, 'The session artifacts folder', { create: true })
  for (const file of files) {
    const handle = await openPrivateFile(join(folder, file.name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 'A session artifact')
    try {
      await writeWhole(handle, file.content)
      await handle.datasync()
    } finally {
      await handle.close()
    }
  }
  await syncFolder(folder)
}

/** Removes the files of an event that was not recorded after all. */
export async function removeEventArtifacts(sessionDir: string, files: PendingArtifact[]): Promise<void> {
  await Promise.all(files.map((file) => rm(join(sessionDir, ARTIFACTS_FOLDER, file.name), { force: true }).catch(() => {})))
}
