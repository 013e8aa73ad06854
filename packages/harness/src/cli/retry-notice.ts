import type { SessionEvent } from 'dsh-host'

/**
 * A provider retry as the provider kit appends it to the call's session
 * (`web/provider-retry-wait`, docs/events.md). The harness reads the event,
 * not the kit: any provider that writes it is shown.
 */
export interface RetryNoticeLike {
  retry: number
  maxRetries: number
  waitMs: number
  waitFrom?: string
  reason: string
}

export const RETRY_EVENT = 'web/provider-retry-wait'

export function retryNotice(event: SessionEvent): RetryNoticeLike | undefined {
  if (event.type !== RETRY_EVENT || typeof event.data !== 'object' || event.data === null || Array.isArray(event.data)) return undefined
  const { retry, maxRetries, waitMs, waitFrom, reason } = event.data as Record<string, unknown>
  if (typeof retry !== 'number' || typeof maxRetries !== 'number' || typeof waitMs !== 'number' || typeof reason !== 'string') return undefined
  return { retry, maxRetries, waitMs, reason, ...(typeof waitFrom === 'string' ? { waitFrom } : {}) }
}
