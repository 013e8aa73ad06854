import type { InvokeOptions, JsonValue, SessionEvent, SessionHandle, ToolCallContext, ToolOutcome } from 'dsh-host'
import { ToolCallFailure } from './code-sandbox.js'

export type NestedCallOutcome = 'ok' | 'error' | 'cancelled'

/** One tool call made by run_code's code, as the run's result lists it. */
export interface NestedCall {
  callId: string
  tool: string
  outcome: NestedCallOutcome
  /** The error code when it failed or was cancelled (the code its handler ended with, or CODE_CANCELLED when it never ended). */
  code?: string
  durationMs: number
  /** False for a call that had not ended when the run reported: it was abandoned, and nothing it does later is recorded. */
  settled?: boolean
}

export interface NestedCallHost {
  invoke(name: string, input: unknown, options: InvokeOptions & { nested: true }): Promise<ToolOutcome>
}

interface Running {
  record: Omit<NestedCall, 'outcome'> & { outcome: NestedCallOutcome | 'running' }
  started: number
  done: Promise<unknown>
}

/**
 * The tool calls of one run_code run. Every call gets the run's own abort
 * signal and a session handle that stops writing when the run reports. When
 * the run ends (result, error, timeout, cancel) the calls still in flight
 * are cancelled, and the run waits up to `graceMs` for them to end so that
 * their ends are recorded before its own result; a call that ignores its
 * signal past that is recorded as abandoned, and whatever it writes later is
 * discarded, so no nested call writes to the session after run_code's result.
 */
export class NestedCalls {
  private readonly running: Running[] = []
  private readonly controller = new AbortController()
  private readonly session?: SessionHandle
  private open = true
  private counter = 0

  constructor(private readonly host: NestedCallHost, private readonly parent: ToolCallContext, private readonly graceMs: number) {
    const onAbort = () => this.controller.abort()
    if (parent.signal.aborted) onAbort()
    else parent.signal.addEventListener('abort', onAbort, { once: true })
    this.controller.signal.addEventListener('abort', () => parent.signal.removeEventListener('abort', onAbort), { once: true })
    if (parent.session) this.session = gate(parent.session, () => this.open)
  }

  /** Every call made, in the order made, with how it ended (read after `finish`). */
  list(): NestedCall[] {
    return this.running.map(({ record }) => ({ ...record, outcome: record.outcome === 'running' ? 'cancelled' : record.outcome }))
  }

  /** Runs one call for the code; resolves to the JSON text of its structured output. */
  call(tool: string, input: JsonValue): Promise<string> {
    if (!this.open || this.controller.signal.aborted) return Promise.reject(new ToolCallFailure('CODE_CANCELLED', 'The run has ended; no more tool calls are made.'))
    const callId = `${this.parent.callId}:code:${++this.counter}`
    const started = Date.now()
    const entry: Running = { record: { callId, tool, outcome: 'running', durationMs: 0 }, started, done: Promise.resolve() }
    this.running.push(entry)
    const work = (async () => {
      await this.session?.append('tool/code-dispatch-start', { callId, parentCallId: this.parent.callId, tool })
      const outcome = await this.host.invoke(tool, input, { session: this.session, signal: this.controller.signal, callId, nested: true })
      const record = entry.record
      if (record.outcome !== 'running') return outcome
      record.outcome = this.controller.signal.aborted ? 'cancelled' : outcome.isError ? 'error' : 'ok'
      if (outcome.error) record.code = outcome.error.code
      record.durationMs = Date.now() - started
      await this.session?.append('tool/code-dispatch', {
        ...record,
        parentCallId: this.parent.callId,
        ...(outcome.error ? { message: outcome.error.message } : {}),
      } as unknown as JsonValue)
      return outcome
    })()
    entry.done = work.catch(() => {})
    return work.then((outcome) => {
      if (outcome.isError) throw new ToolCallFailure(outcome.error?.code ?? 'TOOL_ERROR', outcome.error?.message ?? outcome.content)
      return JSON.stringify(outcome.structured ?? null)
    })
  }

  /**
   * The run is over: cancels what is still running, waits up to the grace
   * period for it to end, records what did not, then closes the session to
   * every call of this run.
   */
  async finish(): Promise<void> {
    this.controller.abort()
    const pending = this.running.filter(({ record }) => record.outcome === 'running')
    if (pending.length) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.all(pending.map(({ done }) => done)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, this.graceMs))),
      ])
      clearTimeout(timer)
    }
    for (const { record, started } of this.running) {
      if (record.outcome !== 'running') continue
      Object.assign(record, { outcome: 'cancelled', code: 'CODE_CANCELLED', durationMs: Date.now() - started, settled: false })
      await this.session?.append('tool/code-dispatch', {
        ...record,
        parentCallId: this.parent.callId,
        message: `The call was cancelled when the run ended and had not stopped ${this.graceMs} ms later; it was abandoned, and nothing it does from now on is recorded.`,
      } as unknown as JsonValue)
    }
    this.open = false
  }
}

/** The session as a run's nested calls see it: appends go through while the run is open and are discarded after. */
function gate(session: SessionHandle, isOpen: () => boolean): SessionHandle {
  return {
    id: session.id,
    dir: session.dir,
    append(type: string, data: JsonValue, options?: { visibility?: 'surface' | 'log' }): Promise<SessionEvent> {
      if (isOpen()) return session.append(type, data, options)
      // Not an error: a handler that ignored its cancellation would only fail at some later await; the run has already said it was abandoned.
      return Promise.resolve({ seq: 0, time: new Date().toISOString(), type, visibility: options?.visibility ?? 'log', data })
    },
    read: () => session.read(),
  }
}
