import { sharedRecordsOf } from 'dsh-host'
import { SharedTokenStore } from './shared-token-store.js'
import { FileTokenStore, TokenError, type TokenStore } from './token-store.js'

/**
 * The token store of a composition, one rule for `dsh mcp --http` and
 * `dsh mcp token`: when the web row's stateStore is shared (the Redis row
 * mounted and selected), the tokens live there, so every machine on it sees
 * the same ones; when it is this process's own (`memory`, or no web row),
 * in `$DSH_HOME/mcp-tokens.json`. A stateStore that names a store no row
 * registers is an error, not a quiet fall back to the file: the operator
 * asked for shared state, and a token revoked there must not live on here.
 */
export function selectTokenStore(web: unknown, home: string): TokenStore {
  const records = sharedRecordsOf(web)
  const where = records?.recordsLocation()
  if (!records || !where || (where.registered && !where.shared)) return FileTokenStore.inHome(home)
  if (!where.registered) {
    throw new TokenError('MCP_TOKEN_STORE_UNAVAILABLE', `The web row names the state store "${where.storeId}" (stateStore), which no row registers, so the MCP tokens have no store: mount its row (e.g. - id: cache-redis / name: dsh-cache-redis), or set stateStore to memory to keep the tokens in ${FileTokenStore.inHome(home).path}.`)
  }
  return new SharedTokenStore(records)
}
