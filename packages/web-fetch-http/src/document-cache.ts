/**
 * A small in-memory cache of converted documents, bounded by bytes and by
 * time, so that every page of a long document comes from one fetch.
 * Least recently used entries go first.
 */
export class DocumentCache<T extends { sizeBytes: number }> {
  private readonly entries = new Map<string, { value: T; expires: number }>()
  private bytes = 0

  constructor(
    private readonly maxBytes: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.expires <= this.now()) {
      this.delete(key)
      return undefined
    }
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  set(key: string, value: T) {
    if (this.maxBytes <= 0 || this.ttlMs <= 0 || value.sizeBytes > this.maxBytes) return
    this.delete(key)
    this.entries.set(key, { value, expires: this.now() + this.ttlMs })
    this.bytes += value.sizeBytes
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.delete(oldest)
    }
  }

  get size(): number {
    return this.entries.size
  }

  clear() {
    this.entries.clear()
    this.bytes = 0
  }

  private delete(key: string) {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.bytes -= entry.value.sizeBytes
  }
}
