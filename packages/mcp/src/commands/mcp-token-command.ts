import { boot, defaultHome } from 'dsh-harness'
import { escapeForTerminal, type GlobalOptions, type Output, parseLifetime, UsageError } from 'dsh-harness/cli'
import { selectTokenStore } from '../auth/select-token-store.js'
import type { TokenRecord, TokenStore } from '../auth/token-store.js'

const USAGE = 'usage: dsh mcp token create NAME [--expires 30d] | list | revoke NAME   [--json] [--preset NAME] [--config FILE]'

/**
 * `dsh mcp token create|list|revoke`: the bearer tokens of `dsh mcp --http`,
 * kept as SHA-256 hashes in the store the composition selects
 * (select-token-store.ts): its shared state store (Redis) when it has one,
 * else `$DSH_HOME/mcp-tokens.json`. So the command boots the composition,
 * with the same --preset and --config as the servers. A token is printed
 * once, by `create`, and never again.
 */
export async function runMcpToken(options: GlobalOptions, args: string[], flags: { json: boolean; expires?: string }, io: Output): Promise<number> {
  const [action, name, ...rest] = args
  if (rest.length || !['create', 'list', 'revoke'].includes(action ?? '')) throw new UsageError(USAGE)
  if (flags.expires !== undefined && action !== 'create') throw new UsageError('--expires goes with dsh mcp token create.')
  if (action !== 'list' && !name) throw new UsageError(`usage: dsh mcp token ${action} NAME${action === 'create' ? ' [--expires 30d]' : ''}`)
  if (action === 'list' && name) throw new UsageError('usage: dsh mcp token list [--json]')
  const expiresAt = flags.expires === undefined ? undefined : new Date(Date.now() + parseLifetime(flags.expires, '--expires'))
  const composition = await boot(options, io, { prefix: 'dsh mcp token' })
  try {
    const store = selectTokenStore(composition.ctx.get('stateStore'), defaultHome())
    return await runAction(store, action!, name, expiresAt, flags.json, io)
  } finally {
    await composition.dispose()
  }
}

async function runAction(store: TokenStore, action: string, name: string | undefined, expiresAt: Date | undefined, json: boolean, io: Output): Promise<number> {
  switch (action) {
    case 'create': {
      const { token, record } = await store.create(name!, { expiresAt })
      if (json) io.out(JSON.stringify({ ...describe(record), token, store: store.describe() }, null, 2))
      else {
        io.out(token)
        io.err(`dsh: created the MCP token "${name}"${record.expires ? `, valid until ${record.expires}` : ', without expiry'}. It is shown this once: only its hash is kept (${store.describe()}). Clients send it as Authorization: Bearer TOKEN.`)
      }
      return 0
    }
    case 'list': {
      const tokens = (await store.list()).map(describe)
      if (json) io.out(JSON.stringify({ store: store.describe(), tokens }, null, 2))
      else {
        // Every field is the store's (a file or Redis anyone with access can plant a record in): escaped as page text is, so none can retitle or rewrite the terminal.
        const lines = tokens.map((token) => `${token.name}  created ${token.created}  ${token.expires ? `expires ${token.expires}` : 'no expiry'}  ${token.revoked ? `revoked ${token.revoked}` : token.expired ? 'expired' : 'active'}`)
        io.out(escapeForTerminal([`MCP tokens in ${store.describe()}:`, ...(lines.length ? lines : ['none; create one with dsh mcp token create NAME.'])].join('\n')))
      }
      return 0
    }
    default: {
      const record = await store.revoke(name!)
      if (json) io.out(JSON.stringify({ ...describe(record), store: store.describe() }, null, 2))
      else io.out(escapeForTerminal(`Revoked the MCP token "${name}" (${record.revoked}) in ${store.describe()}; every dsh mcp --http that checks tokens there refuses it from its next request.`))
      return 0
    }
  }
}

/** What may be shown of a token: never the token, nor its hash. */
function describe(record: TokenRecord) {
  return {
    name: record.name,
    created: record.created,
    expires: record.expires,
    revoked: record.revoked,
    expired: !!record.expires && Date.parse(record.expires) <= Date.now(),
  }
}
