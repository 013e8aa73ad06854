import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'
import { BoundedCache } from './bounded-cache.js'
import type { Admission, RateRule, SlotAdmission, StateStore } from './state-store.js'

export const MEMORY_STORE_ID = 'memory'

/** How often a call waiting for a slot of this process looks again. */
const SLOT_POLL_MS = 10

/**
 * The in-process store: the cache bounded by bytes, the request counts by
 * rate-limiter-flexible's memory limiter (the same fixed windows as its
 * Redis limiter), the slots by a counter. It never fails, and it is what the
 * seam counts limits with while a shared store does not answer.
 */
export class MemoryStateStore implements StateStore {
  readonly id = MEMORY_STORE_ID
  private readonly cache: BoundedCache<{ sizeBytes: number; value: string }>
  private readonly limiters = new Map<string, RateLimiterMemory>()
  private readonly slots = new Map<string, number>()

  constructor(maxBytes: number, now: () => number = Date.now) {
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
    const name = `${rule.requests}/${rule.intervalSeconds}`
    let limiter = this.limiters.get(name)
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: rule.requests, duration: rule.intervalSeconds, keyPrefix: name })
      this.limiters.set(name, limiter)
    }
    try {
      await limiter.consume(bucket, 1)
      return { admitted: true }
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return { admitted: false, retryAfterMs: Math.max(1, refusal.msBeforeNext) }
      throw refusal
    }
  }

  async enter(bucket: string, max: number): Promise<SlotAdmission> {
    const held = this.slots.get(bucket) ?? 0
    if (held >= max) return { admitted: false, retryAfterMs: SLOT_POLL_MS }
    this.slots.set(bucket, held + 1)
    let released = false
    return {
      admitted: true,
      release: async () => {
        if (released) return
        released = true
        const left = (this.slots.get(bucket) ?? 1) - 1
        if (left > 0) this.slots.set(bucket, left)
        else this.slots.delete(bucket)
      },
    }
  }

  /** Empties the cache (the plugin's disposal). */
  clear() {
    this.cache.clear()
  }
}
