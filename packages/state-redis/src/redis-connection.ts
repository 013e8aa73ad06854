import { Redis, ReplyError } from 'ioredis'

/** Where to connect, resolved at every connect (the URL and password are credentials, never config). */
export interface RedisTarget {
  url: string
  password?: string
}

export interface RedisConnectionOptions {
  resolveTarget: () => Promise<RedisTarget>
  connectTimeoutMs: number
}

/**
 * One client at a time, made when a command needs it and made again, with
 * the credentials resolved again, after it ends. The client itself never
 * reconnects nor queues commands while disconnected: a Redis that is down
 * fails each command at once, and the seam decides what the call does
 * without it (dsh-web's shared-state.ts).
 */
export class RedisConnection {
  private client?: Redis
  private connecting?: Promise<Redis>
  /** The last URL connected to, without its password, for notes and doctor. */
  location?: string

  constructor(private readonly options: RedisConnectionOptions) {}

  /**
   * Runs the commands on the current client. A failure that is not Redis's
   * own answer (a reply error) drops the client, so the next call connects
   * afresh: a socket can break before ioredis notices.
   */
  async run<T>(commands: (client: Redis) => Promise<T>): Promise<T> {
    const client = await this.get()
    try {
      return await commands(client)
    } catch (error) {
      if (!(error instanceof ReplyError) && this.client === client) {
        this.client = undefined
        client.disconnect()
      }
      throw error
    }
  }

  private async get(): Promise<Redis> {
    if (this.client?.status === 'ready') return this.client
    if (this.connecting) return this.connecting
    const stale = this.client
    this.client = undefined
    stale?.disconnect()
    const connecting = this.open()
    this.connecting = connecting
    try {
      this.client = await connecting
      return this.client
    } finally {
      if (this.connecting === connecting) this.connecting = undefined
    }
  }

  async close(): Promise<void> {
    const client = this.client ?? (await this.connecting?.catch(() => undefined))
    this.client = undefined
    if (!client) return
    try {
      await client.quit()
    } catch {
      client.disconnect()
    }
  }

  private async open(): Promise<Redis> {
    const target = await this.options.resolveTarget()
    this.location = redactRedisUrl(target.url)
    const client = new Redis(target.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: this.options.connectTimeoutMs,
      ...(target.password ? { password: target.password } : {}),
    })
    // Failures reach the callers through their commands; without a listener ioredis would print them.
    // The one that ends a connect (a refused AUTH) comes as an event before "Connection is closed".
    let reason: unknown
    client.on('error', (error) => (reason ??= error))
    try {
      await client.connect()
    } catch (error) {
      client.disconnect()
      const cause = reason ?? error
      throw new Error(`cannot connect to ${this.location}: ${(cause as Error)?.message ?? cause}`, { cause })
    }
    return client
  }
}

/** A Redis URL without its user's password (the user name stays: it names an ACL user, not a secret). */
export function redactRedisUrl(value: string): string {
  try {
    const url = new URL(value)
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return '<not a redis:// URL>'
    url.password = ''
    url.search = ''
    url.hash = ''
    return url.href.replace(/\/$/, '')
  } catch {
    return '<unparseable URL>'
  }
}
