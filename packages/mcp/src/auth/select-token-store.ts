import type { StateStore } from 'dsh-host'
import { SharedTokenStore } from './shared-token-store.js'
import { FileTokenStore, type TokenStore } from './token-store.js'

/**
 * The token store of a composition, one rule for `dsh mcp --http` and
 * `dsh mcp token`: when a row provides the shared state store
 * (`ctx.stateStore`, the dsh-state-redis row), the tokens live there, so
 * every machine on it sees the same ones; when none does, in
 * `$DSH_HOME/mcp-tokens.json`. The state row decides, never the web row:
 * the tokens are no part of the web tools.
 */
export function selectTokenStore(stateStore: StateStore | undefined, home: string): TokenStore {
  return stateStore ? new SharedTokenStore(stateStore) : FileTokenStore.inHome(home)
}
