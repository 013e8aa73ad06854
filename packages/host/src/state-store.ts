/**
 * `ctx.stateStore`: the state every process of a deployment shares, one
 * service the composition mounts (dsh-state-redis: Redis or Valkey). Its
 * consumers are the seam (`ctx.web.state`: the fetch and search cache and
 * the limits), the fetch provider through it, and the MCP server (its
 * bearer tokens, as records). Where no row provides it, each keeps its
 * state in its own process: the seam in its memory store, the MCP tokens
 * in `$DSH_HOME/mcp-tokens.json`.
 *
 * A store holds what a call returned to the model anyway (a converted page,
 * a search result) and counters; never a key, a header or a credential.
 * Its methods reject when the store cannot answer: the seam then runs the
 * call without it and says so (shared-state.ts), so a store never has to
 * hide its own failures. Records (`readRecords`, `replaceRecord`) are the
 * exception: no call goes on without them, their failures reach the caller.
 */
export interface StateStore {
  readonly id: string
  /** Where the state lives, for notes and `dsh doctor` (e.g. `redis://10.0.0.7:6379/0`); never a password. */
  describe(): string
  /** Resolves when the store answers. */
  ping(): Promise<void>
  /** The value stored under the key, or undefined. */
  read(key: string): Promise<string | undefined>
  /** Stores one value under every key for `ttlMs` (each key stops naming what it named before). */
  write(keys: string[], value: string, ttlMs: number): Promise<void>
  /** Counts one request against `rule` for the bucket: admitted, or how long until the next one is. */
  consume(bucket: string, rule: RateRule): Promise<Admission>
  /**
   * Takes one of `max` slots of the bucket, held until released or until
   * `leaseMs` passes (so a process that dies does not hold it for ever).
   */
  enter(bucket: string, max: number, leaseMs: number): Promise<SlotAdmission>
  /**
   * Every entry of a map of records: values with no expiry, never evicted by
   * the cache's bound (e.g. the MCP tokens' hashes), never served from a
   * cache: read from the store itself on every call.
   */
  readRecords(map: string): Promise<Record<string, string>>
  /** Sets the record to `value` when it holds `expected` now (undefined: absent), in one step; false when it did not. */
  replaceRecord(map: string, field: string, expected: string | undefined, value: string): Promise<boolean>
}

/** `requests` per `intervalSeconds` (a fixed window, as rate-limiter-flexible counts). */
export interface RateRule {
  requests: number
  intervalSeconds: number
}

export type Admission = { admitted: true } | { admitted: false; retryAfterMs: number }

export type SlotAdmission = { admitted: true; release(): Promise<void> } | { admitted: false; retryAfterMs: number }

/** A limit: requests per interval, concurrent calls, or both; 0 or absent is no limit. */
export interface LimitRule {
  requests?: number
  intervalSeconds?: number
  concurrency?: number
}

/** An admitted slot whose release ends it once, however often it is called (a caller's `finally` and its error path may both call it). */
export function admittedSlot(end: () => Promise<void> | void): SlotAdmission {
  let released = false
  return {
    admitted: true,
    release: async () => {
      if (released) return
      released = true
      await end()
    },
  }
}
