import { BoundedCache } from './bounded-cache.js'
import { type Admission, admittedSlot, type RateRule, type SlotAdmission, type StateStore } from 'dsh-host'

export const MEMORY_STORE_ID = 'memory'

/** How often a call waiting for a slot of this process looks again. */
const SLOT_POLL_MS = 10

/**
 * The in-process store: the cache bounded by bytes, the request counts in
 * fixed windows that start at a bucket's first request (as
 * rate-limiter-flexible counts on Redis, in dsh-state-redis; written out here
 * so that the seam and every package that installs it stay free of
 * third-party dependencies), the slots by a counter, the records in maps
 * (kept until the process ends, never evicted). It never fails, and it is
 * what the seam counts limits with while a shared store does not answer.
 */
export class MemoryStateStore implements StateStore {
  readonly id = MEMORY_STORE_ID
  private readonly cache: BoundedCache<{ sizeBytes: number; value: string }>
  private readonly windows = new Map<string, { count: number; ends: number }>()
  private readonly slots = new Map<string, number>()
  private readonly records = new Map<string, Map<string, string>>()

  constructor(maxBytes: number, private readonly now: () => number = Date.now) {
    this.cache = new BoundedCache(maxBytes, now)
  }

  describe(): string {
    return 'this process'
  }

  async ping(): Promise<void> {}

  async read(key: string): Promise<string | undefined> {
    return this.cache.get(key)?.value
  }

  async write(keys: string[], value: string, ttlMs: number): Promise<void> {
    // UTF-16 text and an allowance for the keys.
    this.cache.set(keys, { sizeBytes: value.length * 2 + 256 * keys.length, value }, ttlMs)
  }

  async consume(bucket: string, rule: RateRule): Promise<Admission> {
    const key = `${rule.requests}/${rule.intervalSeconds}:${bucket}`
    const now = this.now()
    let window = this.windows.get(key)
    if (!window || window.ends <= now) {
      this.forgetEndedWindows(now)
      window = { count: 0, ends: now + rule.intervalSeconds * 1000 }
      this.windows.set(key, window)
    }
    if (window.count >= rule.requests) return { admitted: false, retryAfterMs: Math.max(1, window.ends - now) }
    window.count++
    return { admitted: true }
  }

  async enter(bucket: string, max: number): Promise<SlotAdmission> {
    const held = this.slots.get(bucket) ?? 0
    if (held >= max) return { admitted: false, retryAfterMs: SLOT_POLL_MS }
    this.slots.set(bucket, held + 1)
    return admittedSlot(() => {
      const left = (this.slots.get(bucket) ?? 1) - 1
      if (left > 0) this.slots.set(bucket, left)
      else this.slots.delete(bucket)
    })
  }

  async readRecords(map: string): Promise<Record<string, string>> {
    return Object.fromEntries(this.records.get(map) ?? [])
  }

  async replaceRecord(map: string, field: string, expected: string | undefined, value: string): Promise<boolean> {
    const entries = this.records.get(map) ?? new Map<string, string>()
    if (entries.get(field) !== expected) return false
    entries.set(field, value)
    this.records.set(map, entries)
    return true
  }

  /** Keeps the windows to those still counting, so that many sites never pile up. */
  private forgetEndedWindows(now: number) {
    if (this.windows.size < 1024) return
    for (const [key, window] of this.windows) if (window.ends <= now) this.windows.delete(key)
  }

  /** Empties the cache (the plugin's disposal). */
  clear() {
    this.cache.clear()
  }
}
