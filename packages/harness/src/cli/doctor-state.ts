import { type StateStore, within } from 'dsh-host'
import type { Check } from './doctor-checks.js'

/** How long doctor waits for the state store to answer. */
const STATE_CHECK_MS = 2000

/**
 * 5. The shared state store (ctx.stateStore, provided by a state row such as
 * dsh-state-redis), or none: then the fetch and search cache and the limits
 * are each process's own, and the MCP tokens are in the home's file. A
 * store that does not answer is a warning: web calls go on without it and
 * say so, while the MCP token checks refuse (fail closed).
 */
export async function stateStoreChecks(store: StateStore | undefined): Promise<Check[]> {
  const id = 'stateStore'
  if (!store) return [{ id, status: 'ok', message: "no state row: the fetch and search cache and the limits are this process's own, and the MCP tokens are kept in $DSH_HOME/mcp-tokens.json" }]
  const started = performance.now()
  try {
    await within(store.ping(), STATE_CHECK_MS)
    const ms = Math.round((performance.now() - started) * 10) / 10
    return [{ id, status: 'ok', message: `the state store "${store.id}" at ${store.describe()} answers (${ms} ms): the fetch and search cache, the limits and the MCP tokens are shared by every process on it` }]
  } catch (error) {
    const reason = String((error as Error)?.message ?? error).replace(/\s+/g, ' ').trim()
    return [{
      id,
      status: 'warn',
      message: `the state store "${store.id}" at ${store.describe()} does not answer (${reason}): web calls run without the shared cache, count limits in each process only and say so, and the MCP token checks refuse every request`,
      fix: 'start the store, or check the credentials its row names (dsh credentials list) and the network path to it',
    }]
  }
}
