import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import { join } from 'node:path'
import { ensurePrivateFolder } from 'dsh-host'
import { isJsonValue } from '../json-value.js'
import { assertPrivateHome, openTrustAnchor } from '../private-home.js'
import { replaceFile } from '../replace-file.js'

/**
 * Composition files as parsed before, by the SHA-256 of their text, so that
 * a command whose layers have not changed starts without loading the YAML
 * parser (a third of `dsh tools --json`'s own start, bench:cli-start).
 *
 * The cache is `$DSH_HOME/cache/layers.json`. It is a trust anchor like the
 * personal overlay (what it holds decides which rows run with the
 * operator's keys), so it is read only when it is the operator's and no one
 * else can write it, and it is used only where the home already exists:
 * listing tools never creates a home. It is derived data: a cache that is
 * missing, damaged, another user's or of an older shape is a miss, and the
 * file is parsed as if there were none. It holds at most `MAX_ENTRIES`
 * texts of at most `MAX_TEXT_CHARS` characters, the newest kept; writes
 * replace the file atomically, and when two processes write at once the
 * last one's entries stay (a lost entry is only a parse the next time).
 */

const VERSION = 1
const MAX_ENTRIES = 32
const MAX_TEXT_CHARS = 64 * 1024
const MAX_FILE_BYTES = 4 * 1024 * 1024

interface CacheFile {
  version: number
  /** Text hash to parsed data, oldest first. */
  entries: Record<string, unknown>
}

export class LayerCache {
  private constructor(
    private readonly file: string | undefined,
    private readonly entries: Map<string, unknown>,
    private changed = false,
  ) {}

  /** The home's cache, read once; an empty one that never writes when the home does not exist or the cache cannot be used. */
  static async open(home: string): Promise<LayerCache> {
    const folder = join(home, 'cache')
    try {
      if (!(await assertPrivateHome(home))) return LayerCache.none()
      await ensurePrivateFolder(folder, 'The dsh cache folder', { create: true })
    } catch {
      // A home or a cache folder dsh must not use (the commands that need the home say why): no cache.
      return LayerCache.none()
    }
    const file = join(folder, 'layers.json')
    return new LayerCache(file, await readEntries(file))
  }

  /** A cache that keeps nothing (tests, and callers without a home). */
  static none(): LayerCache {
    return new LayerCache(undefined, new Map())
  }

  get(text: string): unknown {
    return this.entries.get(digest(text))
  }

  /** Keeps a successful parse of `text`, when it is plain JSON data (what JSON cannot hold, such as .inf, is parsed again each time). */
  remember(text: string, data: unknown): void {
    if (!this.file || text.length > MAX_TEXT_CHARS || !isJsonValue(data)) return
    const key = digest(text)
    this.entries.delete(key)
    this.entries.set(key, data)
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    this.changed = true
  }

  /** Writes what `remember` added, replacing the file atomically; a cache that cannot be written stays as it was. */
  async save(): Promise<void> {
    if (!this.file || !this.changed) return
    this.changed = false
    const body: CacheFile = { version: VERSION, entries: Object.fromEntries(this.entries) }
    await replaceFile(this.file, JSON.stringify(body), 'The dsh layer cache').catch(() => {})
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

async function readEntries(file: string): Promise<Map<string, unknown>> {
  try {
    const handle = await openTrustAnchor(file, constants.O_RDONLY, 'The dsh layer cache')
    let text: string
    try {
      if ((await handle.stat()).size > MAX_FILE_BYTES) return new Map()
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
    const parsed = JSON.parse(text) as Partial<CacheFile>
    if (parsed?.version !== VERSION || typeof parsed.entries !== 'object' || parsed.entries === null || Array.isArray(parsed.entries)) return new Map()
    return new Map(Object.entries(parsed.entries).filter(([key]) => /^[0-9a-f]{64}$/.test(key)).slice(-MAX_ENTRIES))
  } catch {
    // Missing, damaged, or another user's: a miss, as if there were no cache.
    return new Map()
  }
}
