import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys } from 'dsh-host'
import { resolveCredential, WebError } from 'dsh-web'
import { RedisConnection } from './redis-connection.js'
import { RedisStateStore } from './redis-store.js'

export const name = 'dsh-state-redis'
/** Credentials are read per connect when mounted (else from the environment); nothing else is needed. */
export const inject = { credentials: { required: false } }

export interface Config {
  urlCredential: string
  passwordCredential?: string
  keyPrefix: string
  connectTimeoutMs: number
  maxEntryBytes: number
}

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  urlCredential: Schema.string().default('DSH_REDIS_URL').description('Name of the credential holding the Redis URL (redis://HOST:PORT/DB, rediss:// for TLS, a user and password may be in it), looked up through ctx.credentials at every connect: `dsh credentials set DSH_REDIS_URL`. Never the URL itself.'),
  passwordCredential: Schema.string().description('Name of a credential holding the password (Redis AUTH), used instead of one in the URL.'),
  keyPrefix: Schema.string().default('dsh:').description('Put before every key: deployments that must not share a cache (another API key, another trust) use different prefixes on one Redis.'),
  connectTimeoutMs: Schema.natural().role('ms').min(1).default(1000).description('Deadline of a connection to Redis.'),
  maxEntryBytes: Schema.natural().min(1024).default(8 * 1024 * 1024).description('A cached document or result larger than this is not stored in Redis.'),
})

/**
 * Provides `ctx.stateStore` on Redis: mounting the row is what selects it,
 * for the seam's cache and limits and for the MCP tokens alike. Nothing
 * connects until a call needs the store.
 */
export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  const connection = new RedisConnection({
    connectTimeoutMs: config.connectTimeoutMs,
    resolveTarget: async () => {
      const url = await readCredential(ctx, config.urlCredential, 'the Redis URL')
      const password = config.passwordCredential ? await readCredential(ctx, config.passwordCredential, 'the Redis password') : undefined
      return { url, ...(password ? { password } : {}) }
    },
  })
  ctx.effect(() => () => void connection.close())
  ctx.set('stateStore', new RedisStateStore(connection, { keyPrefix: config.keyPrefix, maxEntryBytes: config.maxEntryBytes, urlCredential: config.urlCredential }))
}

/** A credential by name, at every connect; a missing one is said by name, never by value. */
async function readCredential(ctx: Context, ref: string, what: string): Promise<string> {
  try {
    return (await resolveCredential(ctx, { providerId: name, ref })).value
  } catch (error) {
    if (WebError.is(error) && error.code === 'WEB_PROVIDER_CREDENTIAL_MISSING') {
      throw new Error(`the credential ${ref}, which holds ${what}, is not set: dsh credentials set ${ref} (or export ${ref})`, { cause: error })
    }
    throw error
  }
}

export { RedisConnection, RedisStateStore }
