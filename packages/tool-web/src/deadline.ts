import { abortError, WebError } from 'dsh-web'

export interface Deadline {
  /** Aborts when the caller cancels or when the deadline passes (reason: WEB_TIMEOUT). */
  readonly signal: AbortSignal
  /**
   * Stops the timer and takes the signal down, so that work still running
   * when the call ends (the other queries after one hit a bug) stops too.
   */
  dispose(): void
}

/**
 * A deadline for one tool call, combined with the caller's signal. When it
 * passes, the signal handed to the provider goes down with a WEB_TIMEOUT
 * reason, so the provider's work ends, not just the wait for it.
 */
export function startDeadline(parent: AbortSignal, timeoutMs: number, what: string): Deadline {
  const controller = new AbortController()
  const timer = setTimeout(() => {
    controller.abort(
      new WebError('WEB_TIMEOUT', `${what} took longer than its deadline of ${timeoutMs} ms and was stopped.`, {
        details: { limit: timeoutMs },
      }),
    )
  }, timeoutMs)
  return {
    signal: AbortSignal.any([parent, controller.signal]),
    dispose: () => {
      clearTimeout(timer)
      if (!controller.signal.aborted) controller.abort(new WebError('WEB_ABORTED', `${what} was stopped because its tool call ended.`))
    },
  }
}

/**
 * Settles with the promise, or rejects with the signal's WebError (WEB_TIMEOUT
 * or WEB_ABORTED) as soon as the signal goes down, even when the work behind
 * the promise does not listen to the signal.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
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
