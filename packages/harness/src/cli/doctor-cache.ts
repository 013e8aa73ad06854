import type { Check } from './doctor-checks.js'

/** The part of ctx.web's shared state doctor reads; the harness does not depend on dsh-web. */
interface StateLike {
  check(): Promise<{ storeId: string; registered: boolean; location?: string; ok: boolean; ms?: number; error?: string }>
}

/**
 * 5. The state store the cache and limits use (the web row's stateStore):
 * in-process, or a shared one that answers now. A shared store that does not
 * answer is a warning, not a failure: calls go on without the cache and count
 * limits per process, and say so in their notes.
 */
export async function stateStoreChecks(web: { state?: StateLike; listStateStores?(): string[] } | undefined): Promise<Check[]> {
  if (!web?.state) return []
  const id = 'web.stateStore'
  const checked = await web.state.check()
  const per = 'the fetch and search cache and the limits'
  if (checked.storeId === 'memory') return [{ id, status: 'ok', message: `stateStore "memory": ${per} are this process's own` }]
  if (!checked.registered) {
    return [{
      id,
      status: 'fail',
      message: `stateStore "${checked.storeId}" is not registered (registered: ${web.listStateStores?.().join(', ') || 'none'}): calls run without the shared cache and count limits per process`,
      fix: `mount the row of the "${checked.storeId}" store (e.g. \`- id: cache-redis\` / \`name: dsh-cache-redis\`), or set stateStore to memory in the web row`,
    }]
  }
  if (checked.ok) return [{ id, status: 'ok', message: `stateStore "${checked.storeId}" at ${checked.location} answers (${checked.ms} ms): ${per} are shared by every process on it` }]
  return [{
    id,
    status: 'warn',
    message: `stateStore "${checked.storeId}" at ${checked.location} does not answer (${checked.error}): calls run without the shared cache, count limits in each process only, and say so in their notes`,
    fix: `start the store, or check the credentials its row names (dsh credentials list) and the network path to it`,
  }]
}
