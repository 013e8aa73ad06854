/**
 * Records every process of a deployment reads and writes: entries of named
 * maps, with no expiry, never evicted, never served from a cache. The seam
 * (`ctx.web.state`) implements it over its state store, so a host that does
 * not depend on dsh-web (dsh-harness keeps its MCP tokens there) reaches the
 * composition's store through this contract.
 *
 * Unlike the cache, a store that does not answer is never skipped quietly:
 * every method rejects, with a message that names the store and the cause,
 * and the caller decides (the MCP token check refuses the request).
 */
export interface SharedRecords {
  /** Which store the records live in, as the composition selects it now. */
  recordsLocation(): SharedRecordsLocation
  /** Every entry of the map, read from the store itself (field to value). */
  readRecords(map: string): Promise<Record<string, string>>
  /**
   * Sets `field` of the map to `value` when it holds `expected` now
   * (`undefined`: when it is absent), in one step on the store: resolves
   * false, changing nothing, when another writer came first.
   */
  replaceRecord(map: string, field: string, expected: string | undefined, value: string): Promise<boolean>
}

export interface SharedRecordsLocation {
  /** The store's id (`memory`, `redis`, ...). */
  storeId: string
  /** False when the records are this process's own (the in-process store). */
  shared: boolean
  /** False when no store of that id is registered: every method rejects. */
  registered: boolean
  /** Where the records live, without a password (e.g. `redis://10.0.0.7:6379/0`). */
  location?: string
}

/** ctx.web.state as a SharedRecords, when the composition mounts a seam that offers it (checked by shape, not by import). */
export function sharedRecordsOf(web: unknown): SharedRecords | undefined {
  const state = (web as { state?: Partial<SharedRecords> } | undefined)?.state
  return state && typeof state.recordsLocation === 'function' && typeof state.readRecords === 'function' && typeof state.replaceRecord === 'function'
    ? (state as SharedRecords)
    : undefined
}
