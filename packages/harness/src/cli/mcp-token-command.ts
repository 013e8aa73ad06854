import { defaultHome } from '../home.js'
import { FileTokenStore, parseLifetime, type TokenRecord } from '../mcp/token-store.js'
import type { Output } from './commands.js'
import { UsageError } from './errors.js'

const USAGE = 'usage: dsh mcp token create NAME [--expires 30d] | list | revoke NAME   [--json]'

/**
 * `dsh mcp token create|list|revoke`: the bearer tokens of `dsh mcp --http`,
 * kept as SHA-256 hashes in `$DSH_HOME/mcp-tokens.json`. A token is printed
 * once, by `create`, and never again.
 */
export async function runMcpToken(args: string[], flags: { json: boolean; expires?: string }, io: Output): Promise<number> {
  const [action, name, ...rest] = args
  const store = FileTokenStore.inHome(defaultHome())
  if (rest.length) throw new UsageError(USAGE)
  if (flags.expires !== undefined && action !== 'create') throw new UsageError('--expires goes with dsh mcp token create.')
  switch (action) {
    case 'create': {
      if (!name) throw new UsageError('usage: dsh mcp token create NAME [--expires 30d]')
      const expiresAt = flags.expires === undefined ? undefined : new Date(Date.now() + lifetime(flags.expires))
      const { token, record } = await store.create(name, { expiresAt })
      if (flags.json) io.out(JSON.stringify({ ...describe(record), token }, null, 2))
      else {
        io.out(token)
        io.err(`dsh: created the MCP token "${name}"${record.expires ? `, valid until ${record.expires}` : ', without expiry'}. It is shown this once: only its hash is kept (${store.path}). Clients send it as Authorization: Bearer TOKEN.`)
      }
      return 0
    }
    case 'list': {
      if (name) throw new UsageError('usage: dsh mcp token list [--json]')
      const tokens = (await store.list()).map(describe)
      if (flags.json) io.out(JSON.stringify({ tokens }, null, 2))
      else io.out(tokens.length ? tokens.map((token) => `${token.name}  created ${token.created}  ${token.expires ? `expires ${token.expires}` : 'no expiry'}  ${token.revoked ? `revoked ${token.revoked}` : token.expired ? 'expired' : 'active'}`).join('\n') : 'No MCP tokens; create one with dsh mcp token create NAME.')
      return 0
    }
    case 'revoke': {
      if (!name) throw new UsageError('usage: dsh mcp token revoke NAME')
      const record = await store.revoke(name)
      if (flags.json) io.out(JSON.stringify(describe(record), null, 2))
      else io.out(`Revoked the MCP token "${name}" (${record.revoked}); every dsh mcp --http on this machine refuses it from its next request.`)
      return 0
    }
    default:
      throw new UsageError(USAGE)
  }
}

function lifetime(text: string): number {
  try {
    return parseLifetime(text)
  } catch (error: any) {
    throw new UsageError(error.message)
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
