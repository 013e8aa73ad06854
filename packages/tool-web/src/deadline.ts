import { abortError, type ProviderCall, WebError } from 'dsh-web'
import type { ToolCallContext } from 'dsh-host'

/** What the work of one tool call gets while its deadline runs. */
export interface ToolDeadline {
  /**
   * What every provider call of this tool call is handed: the deadline's
   * signal, the deadline itself as epoch ms (so the provider does not start a
   * retry wait that would end after it), the session and the call id.
   */
  readonly providerCall: ProviderCall
  /**
   * Settles with the promise, or rejects with the signal's WebError
   * (WEB_TIMEOUT or WEB_ABORTED) as soon as the signal goes down, even when
   * the work behind the promise does not listen to the signal.
   */
  race<T>(promise: Promise<T>): Promise<T>
}

export interface DeadlineOptions {
  timeoutMs: number
  /** The work as the messages name it, e.g. "The web search". */
  what: string
  /** What the model can do after a timeout, appended to the WEB_TIMEOUT message. */
  hint: string
}

/**
 * Runs the work of one tool call under a deadline combined with the caller's
 * signal. When the deadline passes, the signal handed to the provider goes
 * down with a WEB_TIMEOUT reason, so the provider's work ends, not just the
 * wait for it. When the work ends, the signal goes down too (WEB_ABORTED), so
 * whatever is still running (the other queries after one hit a bug) stops.
 */
export async function withDeadline<T>(call: ToolCallContext, options: DeadlineOptions, work: (deadline: ToolDeadline) => Promise<T>): Promise<T> {
  const { timeoutMs, what, hint } = options
  const controller = new AbortController()
  const at = Date.now() + timeoutMs
  const timer = setTimeout(() => {
    controller.abort(
      new WebError('WEB_TIMEOUT', `${what} took longer than its deadline of ${timeoutMs} ms and was stopped; ${hint}`, {
        details: { limit: timeoutMs },
      }),
    )
  }, timeoutMs)
  const signal = AbortSignal.any([call.signal, controller.signal])
  try {
    return await work({
      providerCall: { signal, deadline: at, session: call.session, callId: call.callId },
      race: (promise) => raceSignal(promise, signal, what),
    })
  } finally {
    clearTimeout(timer)
    if (!controller.signal.aborted) controller.abort(new WebError('WEB_ABORTED', `${what} was stopped because its tool call ended.`))
  }
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(abortError(signal, what))
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal, what))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
