import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import { type Admission, admittedSlot, type RateRule, type SlotAdmission, type StateStore } from 'dsh-host'
import type { RedisConnection } from './redis-connection.js'
import { REPLACE_RECORD_SCRIPT } from './record-script.js'
import { ENTER_SLOT_SCRIPT } from './slot-script.js'

export const REDIS_STORE_ID = 'redis'

/** How often a call waiting for a slot looks again, at most (sooner when a lease ends sooner). */
const SLOT_POLL_MS = 25

export interface RedisStoreOptions {
  /** Put before every key, so that deployments (or other users) of one Redis never share keys. */
  keyPrefix: string
  /** A value larger than this is not stored. */
  maxEntryBytes: number
  /** Where the URL comes from, for `describe()` before the first connect. */
  urlCredential: string
}

type ScriptClient = Redis & {
  dshEnterSlot(key: string, max: number, leaseMs: number, holder: string): Promise<number>
  dshReplaceRecord(key: string, field: string, mustBeAbsent: '0' | '1', expected: string, value: string): Promise<number>
}

/**
 * The state store on Redis (or Valkey, which speaks the same protocol):
 * values with `SET … PX`, requests per window through rate-limiter-flexible's
 * Redis limiter, slots through a sorted set (slot-script.ts), records in a
 * hash per map with no expiry (`HGETALL`, and a compare-and-set script,
 * record-script.ts). Every method rejects when Redis does not answer; the
 * seam goes on without it, the MCP server refuses (records are never
 * skipped).
 */
export class RedisStateStore implements StateStore {
  readonly id = REDIS_STORE_ID
  private readonly limiters = new WeakMap<Redis, Map<string, RateLimiterRedis>>()

  constructor(
    private readonly connection: RedisConnection,
    private readonly options: RedisStoreOptions,
  ) {}

  describe(): string {
    return this.connection.location ?? `Redis at the URL in the credential ${this.options.urlCredential}`
  }

  async ping(): Promise<void> {
    await this.connection.run((client) => client.ping())
  }

  async read(key: string): Promise<string | undefined> {
    const value = await this.connection.run((client) => client.get(this.options.keyPrefix + key))
    return value ?? undefined
  }

  async write(keys: string[], value: string, ttlMs: number): Promise<void> {
    const names = keys.map((key) => this.options.keyPrefix + key)
    await this.connection.run(async (client) => {
      if (Buffer.byteLength(value) > this.options.maxEntryBytes) {
        // Too large to share: the keys stop naming an older value, so no call reads a stale one.
        await client.del(...names)
        return
      }
      const transaction = client.multi()
      for (const name of names) transaction.set(name, value, 'PX', Math.max(1, Math.round(ttlMs)))
      const results = await transaction.exec()
      const failed = results?.find(([error]) => error)
      if (!results || failed) throw failed?.[0] ?? new Error('the transaction was discarded')
    })
  }

  async consume(bucket: string, rule: RateRule): Promise<Admission> {
    return this.connection.run(async (client) => {
      try {
        await this.limiter(client, rule).consume(bucket, 1)
        return { admitted: true }
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return { admitted: false, retryAfterMs: Math.max(1, refusal.msBeforeNext) }
        throw refusal
      }
    })
  }

  async enter(bucket: string, max: number, leaseMs: number): Promise<SlotAdmission> {
    const key = `${this.options.keyPrefix}slots:${bucket}`
    const holder = randomUUID()
    const answer = await this.connection.run((client) => scriptClient(client).dshEnterSlot(key, max, Math.max(1, Math.round(leaseMs)), holder))
    if (answer >= 0) return { admitted: false, retryAfterMs: Math.min(SLOT_POLL_MS, answer) }
    return admittedSlot(async () => {
      await this.connection.run((client) => client.zrem(key, holder))
    })
  }

  async readRecords(map: string): Promise<Record<string, string>> {
    return this.connection.run((client) => client.hgetall(this.recordsKey(map)))
  }

  async replaceRecord(map: string, field: string, expected: string | undefined, value: string): Promise<boolean> {
    const key = this.recordsKey(map)
    const answer = await this.connection.run((client) => scriptClient(client).dshReplaceRecord(key, field, expected === undefined ? '1' : '0', expected ?? '', value))
    return answer === 1
  }

  private recordsKey(map: string): string {
    return `${this.options.keyPrefix}records:${map}`
  }

  /** One rate-limiter-flexible limiter per client and rule (points and duration are fixed per limiter). */
  private limiter(client: Redis, rule: RateRule): RateLimiterRedis {
    let byRule = this.limiters.get(client)
    if (!byRule) {
      byRule = new Map()
      this.limiters.set(client, byRule)
    }
    const name = `${rule.requests}/${rule.intervalSeconds}`
    let limiter = byRule.get(name)
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: client, points: rule.requests, duration: rule.intervalSeconds, keyPrefix: `${this.options.keyPrefix}rate:${name}`, rejectIfRedisNotReady: true })
      byRule.set(name, limiter)
    }
    return limiter
  }
}

function scriptClient(client: Redis): ScriptClient {
  const scripts = client as ScriptClient
  if (typeof scripts.dshEnterSlot !== 'function') client.defineCommand('dshEnterSlot', { numberOfKeys: 1, lua: ENTER_SLOT_SCRIPT })
  if (typeof scripts.dshReplaceRecord !== 'function') client.defineCommand('dshReplaceRecord', { numberOfKeys: 1, lua: REPLACE_RECORD_SCRIPT })
  return scripts
}
