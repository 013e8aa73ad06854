import type { JsonValue, SessionEvent, SessionHandle, ToolCallContext, ToolOutcome, ToolsService } from 'dsh-host'
import { ToolCallFailure } from './code-sandbox.js'

export type NestedCallOutcome = 'ok' | 'error' | 'cancelled'

/** One tool call made by run_code's code, as the run's result lists it. */
export interface NestedCall {
  callId: string
  tool: string
  outcome: NestedCallOutcome
  /** The error code when it failed or was cancelled (the code its handler ended with, or CODE_CANCELLED when it never ended). */
  code?: string
  /** Milliseconds from its start to its end (0 for a call that never started). */
  durationMs: number
  /** When the code made the call (ISO 8601). */
  queuedAt: string
  /** When it started: at once, or when a call ahead of it ended (absent for a call cancelled while it waited). */
  startedAt?: string
  /** False for a call that had not ended when the run reported: it was abandoned, and nothing it does later is recorded. */
  settled?: boolean
}

interface Running {
  record: Omit<NestedCall, 'outcome'> & { outcome: NestedCallOutcome | 'queued' | 'running' }
  started: number
  done: Promise<unknown>
}

export interface NestedCallLimits {
  /** Calls of one run running at once; the code's further calls wait in call order. */
  maxConcurrent: number
  /** How long a run that ended waits for its cancelled calls to end before it reports. */
  graceMs: number
}

/**
 * The tool calls of one run_code run. At most `maxConcurrent` run at once:
 * the code's further calls wait, in the order made, and each starts when a
 * running one ends (fan-out with Promise.all over many URLs is what PTC is
 * for; the wait counts against the run's deadline, since the run's clock
 * never stops). Every call gets the run's own abort
 * signal and a session handle that stops writing when the run reports. When
 * the run ends (result, error, timeout, cancel) the calls still in flight
 * are cancelled, and the run waits up to `graceMs` for them to end so that
 * their ends are recorded before its own result; a call that ignores its
 * signal past that is recorded as abandoned, and whatever it writes later is
 * discarded, so no nested call writes to the session after run_code's result.
 */
export class NestedCalls {
  private readonly running: Running[] = []
  /** Calls made while `maxConcurrent` were running, in call order, each with what starts it. */
  private readonly queue: { start: () => void; cancel: () => Promise<void> }[] = []
  private active = 0
  private readonly controller = new AbortController()
  private readonly session?: SessionHandle
  private open = true
  private counter = 0

  constructor(private readonly tools: Pick<ToolsService, 'invoke'>, private readonly parent: ToolCallContext, private readonly limits: NestedCallLimits) {
    const onAbort = () => this.controller.abort()
    if (parent.signal.aborted) onAbort()
    else parent.signal.addEventListener('abort', onAbort, { once: true })
    this.controller.signal.addEventListener('abort', () => parent.signal.removeEventListener('abort', onAbort), { once: true })
    if (parent.session) this.session = gate(parent.session, () => this.open)
  }

  /** Every call made, in the order made, with how it ended (read after `finish`). */
  list(): NestedCall[] {
    return this.running.map(({ record }) => ({ ...record, outcome: record.outcome === 'running' || record.outcome === 'queued' ? 'cancelled' : record.outcome }))
  }

  /** Runs one call for the code, or queues it behind the running ones; resolves to the JSON text of its structured output. */
  call(tool: string, input: JsonValue): Promise<string> {
    if (!this.open || this.controller.signal.aborted) return Promise.reject(new ToolCallFailure('CODE_CANCELLED', 'The run has ended; no more tool calls are made.'))
    const callId = `${this.parent.callId}:code:${++this.counter}`
    const entry: Running = { record: { callId, tool, outcome: 'queued', durationMs: 0, queuedAt: new Date().toISOString() }, started: 0, done: Promise.resolve() }
    this.running.push(entry)
    const work = new Promise<ToolOutcome>((resolve, reject) => {
      const start = () => {
        this.active++
        const running = this.invoke(entry, input)
        running.then(resolve, reject)
        entry.done = running.catch(() => {}).finally(() => this.release())
      }
      const cancel = () => {
        reject(cancelledWhileQueued(this.limits.maxConcurrent))
        return this.recordNeverStarted(entry)
      }
      if (this.active < this.limits.maxConcurrent) start()
      else this.queue.push({ start, cancel })
    })
    return work.then((outcome) => {
      if (outcome.isError) throw new ToolCallFailure(outcome.error?.code ?? 'TOOL_ERROR', outcome.error?.message ?? outcome.content)
      return JSON.stringify(outcome.structured ?? null)
    })
  }

  private async invoke(entry: Running, input: JsonValue): Promise<ToolOutcome> {
    const record = entry.record
    const { callId, tool } = record
    entry.started = Date.now()
    record.startedAt = new Date(entry.started).toISOString()
    record.outcome = 'running'
    await this.session?.append('tool/code-dispatch-start', { callId, parentCallId: this.parent.callId, tool, queuedAt: record.queuedAt, startedAt: record.startedAt })
    const outcome = await this.tools.invoke(tool, input, { session: this.session, signal: this.controller.signal, callId, nested: true })
    if (record.outcome !== 'running') return outcome
    record.outcome = this.controller.signal.aborted ? 'cancelled' : outcome.isError ? 'error' : 'ok'
    if (outcome.error) record.code = outcome.error.code
    record.durationMs = Date.now() - entry.started
    await this.session?.append('tool/code-dispatch', {
      ...record,
      parentCallId: this.parent.callId,
      ...(outcome.error ? { message: outcome.error.message } : {}),
    } as unknown as JsonValue)
    return outcome
  }

  /** A running call ended: the first queued call takes its place (none once the run is cancelled or over: finish records them). */
  private release(): void {
    this.active--
    if (this.open && !this.controller.signal.aborted) this.queue.shift()?.start()
  }

  /** A queued call the run's end cancelled before it started: recorded like a running one that was cancelled. */
  private async recordNeverStarted(entry: Running): Promise<void> {
    Object.assign(entry.record, { outcome: 'cancelled', code: 'CODE_CANCELLED' })
    await this.session?.append('tool/code-dispatch', {
      ...entry.record,
      parentCallId: this.parent.callId,
      message: `The call was waiting for a free slot (at most ${this.limits.maxConcurrent} tool calls of one run at once) when the run ended; it never started.`,
    } as unknown as JsonValue)
  }

  /**
   * The run is over: cancels what is still running, waits up to the grace
   * period for it to end, records what did not, then closes the session to
   * every call of this run.
   */
  async finish(): Promise<void> {
    this.controller.abort()
    // Queued calls never start: each is recorded as cancelled, like a running one, and its promise rejected.
    for (const queued of this.queue.splice(0)) await queued.cancel()
    const pending = this.running.filter(({ record }) => record.outcome === 'running')
    if (pending.length) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.all(pending.map(({ done }) => done)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, this.limits.graceMs))),
      ])
      clearTimeout(timer)
    }
    for (const { record, started } of this.running) {
      if (record.outcome !== 'running') continue
      Object.assign(record, { outcome: 'cancelled', code: 'CODE_CANCELLED', durationMs: Date.now() - started, settled: false })
      await this.session?.append('tool/code-dispatch', {
        ...record,
        parentCallId: this.parent.callId,
        message: `The call was cancelled when the run ended and had not stopped ${this.limits.graceMs} ms later; it was abandoned, and nothing it does from now on is recorded.`,
      } as unknown as JsonValue)
    }
    this.open = false
  }
}

function cancelledWhileQueued(maxConcurrent: number): ToolCallFailure {
  return new ToolCallFailure('CODE_CANCELLED', `The run ended while this call waited for a free slot (at most ${maxConcurrent} tool calls of one run at once); it never started.`)
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
    // The same set, not a copy: what the code's calls see is seen by the session, and the other way round.
    ...(session.seenUrls ? { seenUrls: session.seenUrls } : {}),
  }
}
