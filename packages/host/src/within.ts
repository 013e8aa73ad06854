/**
 * Rejects after `ms` (with `error()`, or "no answer within N ms") unless
 * `work` settles first, and clears its timer either way: the bound every
 * answer from outside the process gets (a state store, a browser's protocol
 * call). `work` itself is not cancelled; its answer is ignored.
 */
export function within<T>(work: Promise<T>, ms: number, error: () => Error = () => new Error(`no answer within ${ms} ms`)): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expiry = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(error()), Math.max(0, ms))))
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer))
}
