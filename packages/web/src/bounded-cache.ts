/**
 * The memory store's cache: bounded by bytes, each entry by its own time to
 * live, least recently used entries first out. One entry can be stored under
 * several keys (a redirected document under its requested and its final
 * URL): it counts once against the budget, a hit through any key keeps all
 * of them, and it leaves the cache under all its keys at once.
 */
export class BoundedCache<T extends { sizeBytes: number }> {
  /** In least recently used order. */
  private readonly entries = new Set<Entry<T>>()
  private readonly byKey = new Map<string, Entry<T>>()
  private bytes = 0

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): T | undefined {
    const entry = this.byKey.get(key)
    if (!entry) return undefined
    if (entry.expires <= this.now()) {
      this.delete(entry)
      return undefined
    }
    this.entries.delete(entry)
    this.entries.add(entry)
    return entry.value
  }

  /** Stores `value` under the key, or under every one of the keys, for `ttlMs`; each key stops naming what it named before. */
  set(keys: string | string[], value: T, ttlMs: number) {
    const names = new Set(typeof keys === 'string' ? [keys] : keys)
    for (const key of names) this.unlink(key)
    if (this.maxBytes <= 0 || ttlMs <= 0 || value.sizeBytes > this.maxBytes || names.size === 0) return
    const entry: Entry<T> = { value, keys: names, expires: this.now() + ttlMs }
    for (const key of entry.keys) this.byKey.set(key, entry)
    this.entries.add(entry)
    this.bytes += value.sizeBytes
    for (const oldest of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.delete(oldest)
    }
  }

  /** Entries held now, each counted once however many keys it has. */
  get size(): number {
    return this.entries.size
  }

  clear() {
    this.entries.clear()
    this.byKey.clear()
    this.bytes = 0
  }

  /** Takes one key off its entry; an entry left without keys leaves the cache. */
  private unlink(key: string) {
    const entry = this.byKey.get(key)
    if (!entry) return
    this.byKey.delete(key)
    entry.keys.delete(key)
    if (entry.keys.size === 0) this.delete(entry)
  }

  private delete(entry: Entry<T>) {
    if (!this.entries.delete(entry)) return
    for (const key of entry.keys) this.byKey.delete(key)
    this.bytes -= entry.value.sizeBytes
  }
}

interface Entry<T> {
  value: T
  keys: Set<string>
  expires: number
}
