import { createHash } from 'node:crypto'
import { type LimitRule, type SlotAdmission, type StateStore, within } from 'dsh-host'
import { abortError, WebError } from './errors.js'
import type { MemoryStateStore } from './memory-store.js'

/** What a call hands the limits: its signal and, when it has one, its deadline (epoch ms). */
export interface StateCall {
  signal: AbortSignal
  deadline?: number
}

/** One limit to pass before a request goes out. */
export interface LimitRequest {
  /** The bucket counted, e.g. `fetch:example.com` or `search:brave`. */
  bucket: string
  rule: LimitRule
  /** What is limited, for messages: `the site example.com`. */
  subject: string
  /** The work that waits, for messages: `Fetching https://example.com/a`. */
  what: string
  /** Where the limit is set, for messages: `limitPerDomain of the web-fetch-http row`. */
  setting: string
  /** How long a slot is held at most when its call never ends it (a process that died). */
  leaseMs: number
}

/** Ends a call's hold on its limits; never throws. */
export type Release = () => Promise<void>

/** The store in use, as `dsh doctor` reports it. */
export interface StateStatus {
  /** The store's id: `memory` (this process) or the one a row provides as ctx.stateStore (`redis`). */
  storeId: string
  /** False when the state is this process's own. */
  shared: boolean
  /** Where the state lives (`this process`, `redis://10.0.0.7:6379/0`); never a password. */
  location: string
  /** Set while the store is skipped after failing to answer. */
  failing?: { reason: string; since: string }
}

export interface SharedStateOptions {
  /** The store in use, looked up at every call: ctx.stateStore, or `memory` where no row provides one. */
  selected: () => StateStore
  /** The in-process store: where no row provides one, and what limits are counted with while the shared store fails. */
  memory: MemoryStateStore
  /** A store answer slower than this counts as a failure. */
  timeoutMs: number
  /** A store that failed is skipped for this long before it is asked again. */
  retryAfterFailureMs: number
  now?: () => number
}

/** Waits without a deadline of their own stop here. */
const DEFAULT_MAX_WAIT_MS = 30_000

const noRelease: Release = async () => {}

/** A cache key: the namespace and a hash of the parts, so that any URL or query makes a short key. */
export function stateKey(namespace: string, parts: unknown[]): string {
  return `${namespace}:${createHash('sha256').update(JSON.stringify(parts)).digest('base64url')}`
}

/**
 * The seam's policy over its state store, one for every user (the fetch
 * provider's documents and limits, the search cache and limits):
 * - every store answer is bounded by `timeoutMs`; a store that fails or is
 *   slow is skipped for `retryAfterFailureMs`, and each call it skips says so
 *   in its notes: the call runs without the cache, and counts its limits in
 *   this process (the memory store) instead;
 * - a call over a limit waits within its deadline, or ends with
 *   WEB_RATE_LIMITED saying when to retry.
 * A cache or a store never fails a call. (The records a store holds, the
 * MCP tokens, are no business of the seam: their consumer reads them from
 * ctx.stateStore itself, and a store that does not answer fails its call.)
 */
export class SharedState {
  private failure?: { storeId: string; reason: string; since: number; until: number }
  private readonly now: () => number

  constructor(private readonly options: SharedStateOptions) {
    this.now = options.now ?? Date.now
  }

  /** The cached value, or undefined when there is none or the store does not answer (said in `notes`). */
  async read(key: string, notes: string[]): Promise<string | undefined> {
    const outcome = await this.use((store) => store.read(key), notes, 'this call ran without the shared cache')
    return outcome.ok ? outcome.value : undefined
  }

  /** Stores the value under every key; a store that does not answer is said in `notes`. */
  async write(keys: string[], value: string, ttlMs: number, notes: string[]): Promise<void> {
    if (ttlMs <= 0 || keys.length === 0) return
    await this.use((store) => store.write(keys, value, ttlMs), notes, 'what this call fetched was not stored in the shared cache')
  }

  /**
   * Passes the limit (a slot of `concurrency`, then one of `requests` per
   * `intervalSeconds`), waiting within the call's deadline; the release ends
   * the slot. Over the limit past the deadline: WEB_RATE_LIMITED.
   */
  async acquire(limit: LimitRequest, call: StateCall, notes: string[]): Promise<Release> {
    const concurrency = limit.rule.concurrency ?? 0
    const requests = limit.rule.requests ?? 0
    const intervalSeconds = limit.rule.intervalSeconds ?? 1
    if (concurrency <= 0 && requests <= 0) return noRelease
    const deadline = call.deadline ?? this.now() + DEFAULT_MAX_WAIT_MS
    const fallback = `the limit of ${limit.subject} was counted in this process only`
    for (;;) {
      if (call.signal.aborted) throw abortError(call.signal, limit.what)
      let release = noRelease
      let refused: { reason: 'concurrency' | 'rate'; retryAfterMs: number } | undefined
      if (concurrency > 0) {
        const slot = await this.limitWith((store) => store.enter(`${limit.bucket}:slots`, concurrency, limit.leaseMs), notes, fallback)
        if (slot.admitted) release = this.quietRelease(slot)
        else refused = { reason: 'concurrency', retryAfterMs: slot.retryAfterMs }
      }
      if (!refused && requests > 0) {
        const counted = await this.limitWith((store) => store.consume(`${limit.bucket}:rate`, { requests, intervalSeconds }), notes, fallback)
        if (!counted.admitted) {
          await release()
          refused = { reason: 'rate', retryAfterMs: counted.retryAfterMs }
        }
      }
      if (!refused) return release
      const remaining = deadline - this.now()
      if (refused.retryAfterMs >= remaining) throw rateLimited(limit, refused.reason, refused.reason === 'rate' ? refused.retryAfterMs : Math.max(1000, refused.retryAfterMs))
      await sleep(refused.retryAfterMs, call.signal, limit.what)
    }
  }

  /** The store in use, and whether it is being skipped. */
  status(): StateStatus {
    const store = this.options.selected()
    const failing = this.failure?.storeId === store.id ? { reason: this.failure.reason, since: new Date(this.failure.since).toISOString() } : undefined
    return { storeId: store.id, shared: store !== this.options.memory, location: store.describe(), ...(failing ? { failing } : {}) }
  }

  /** Runs `operation` on the selected store, unless it is missing or failing; says in `notes` when it did not. */
  private async use<T>(operation: (store: StateStore) => Promise<T>, notes: string[], consequence: string): Promise<{ ok: true; value: T } | { ok: false }> {
    const store = this.options.selected()
    const id = store.id
    if (store === this.options.memory) return { ok: true, value: await operation(store) }
    const now = this.now()
    if (this.failure?.storeId === id && now < this.failure.until) {
      addNote(notes, this.failingNote(store, consequence))
      return { ok: false }
    }
    try {
      const value = await within(operation(store), this.options.timeoutMs)
      if (this.failure?.storeId === id) this.failure = undefined
      return { ok: true, value }
    } catch (error) {
      const since = this.failure?.storeId === id ? this.failure.since : now
      this.failure = { storeId: id, reason: reasonOf(error), since, until: this.now() + this.options.retryAfterFailureMs }
      addNote(notes, this.failingNote(store, consequence))
      return { ok: false }
    }
  }

  /** A limit operation on the selected store, or on this process's store while that one does not answer. */
  private async limitWith<T>(operation: (store: StateStore) => Promise<T>, notes: string[], fallback: string): Promise<T> {
    const outcome = await this.use(operation, notes, fallback)
    return outcome.ok ? outcome.value : operation(this.options.memory)
  }

  private failingNote(store: StateStore, consequence: string): string {
    const failure = this.failure!
    return `The state store "${store.id}" (${store.describe()}) is not answering (${failure.reason}; since ${new Date(failure.since).toISOString()}): ${consequence}.`
  }

  /** A slot's release that never throws and never waits long: a slot it fails to end runs out with its lease. */
  private quietRelease(slot: Extract<SlotAdmission, { admitted: true }>): Release {
    return async () => {
      try {
        await within(slot.release(), this.options.timeoutMs)
      } catch {
        // the lease ends it
      }
    }
  }
}

function addNote(notes: string[], note: string) {
  if (!notes.includes(note)) notes.push(note)
}

function reasonOf(error: unknown): string {
  const text = String((error as Error)?.message ?? error).replace(/\s+/g, ' ').trim()
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length - 200} more characters)` : text || 'no reason given'
}

function sleep(ms: number, signal: AbortSignal, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(signal, what))
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

const seconds = (ms: number) => `${Math.max(0.1, Math.ceil(ms / 100) / 10)} s`

function rateLimited(limit: LimitRequest, reason: 'concurrency' | 'rate', retryAfterMs: number): WebError {
  const { requests = 0, intervalSeconds = 1, concurrency = 0 } = limit.rule
  const message =
    reason === 'rate'
      ? `${limit.what} is over the limit of ${limit.subject}: ${requests} request${requests === 1 ? '' : 's'} per ${intervalSeconds} s (${limit.setting}), and the next one is free only after this call's deadline. Retry in ${seconds(retryAfterMs)}.`
      : `${limit.what} is over the limit of ${limit.subject}: ${concurrency} call${concurrency === 1 ? '' : 's'} to it at once (${limit.setting}) were all still running at this call's deadline. Retry in ${seconds(retryAfterMs)} or later.`
  return new WebError('WEB_RATE_LIMITED', message, {
    details: { retryAfterMs, limit: reason === 'rate' ? requests : concurrency, rule: reason === 'rate' ? 'requests' : 'concurrency' },
  })
}
