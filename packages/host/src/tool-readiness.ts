/**
 * The tools' readiness signal. Plugins register their tools when they start,
 * in no order a host controls, so a plugin that calls a tool at its own start
 * can find it missing. A tools service emits `tools/registered` (declared in
 * index.ts) once a tool is callable; `whenToolsRegistered` waits on it.
 */
import { CodedError } from './errors.js'
import type { ToolInfo, ToolsService } from './tools.js'

/** The Cordis event (not a session event) a tools service emits, with the tool's info, once `register` has made it callable. */
export const TOOLS_REGISTERED = 'tools/registered'

/** The part of a Cordis context the wait needs: the tools service and the event bus. */
export interface ToolsReadinessContext {
  tools: Pick<ToolsService, 'has'>
  on(name: typeof TOOLS_REGISTERED, listener: (tool: ToolInfo) => void): () => void
}

/** The wait was stopped (its signal aborted) before every named tool was registered. */
export class ToolsNotRegisteredError extends CodedError<'TOOLS_NOT_REGISTERED', { missing: string[] }> {
  constructor(missing: string[], options: { cause?: unknown } = {}) {
    super(
      'TOOLS_NOT_REGISTERED',
      `Stopped waiting for ${missing.length === 1 ? 'the tool' : 'the tools'} ${missing.join(', ')}: not registered yet. ` +
        'Is the row that registers them (dsh-tool-web for web_search and web_fetch) mounted and started?',
      { details: { missing }, cause: options.cause },
    )
    this.name = 'ToolsNotRegisteredError'
  }
}

/**
 * Resolves once every named tool is registered (at once when they already
 * are). Rejects with a `ToolsNotRegisteredError` naming the ones still missing
 * when `signal` aborts: give it a deadline, since a row that failed to start
 * never registers its tools.
 */
export function whenToolsRegistered(ctx: ToolsReadinessContext, names: readonly string[], options: { signal?: AbortSignal } = {}): Promise<void> {
  const missing = () => names.filter((name) => !ctx.tools.has(name))
  if (!missing().length) return Promise.resolve()
  const { signal } = options
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      stopListening()
      signal?.removeEventListener('abort', onAbort)
    }
    const onAbort = () => {
      done()
      reject(new ToolsNotRegisteredError(missing(), { cause: signal?.reason }))
    }
    const stopListening = ctx.on(TOOLS_REGISTERED, () => {
      if (missing().length) return
      done()
      resolve()
    })
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
