import { headerValue, type HttpAnswer } from 'dsh-provider-kit'

/**
 * One window of Brave's rate-limit headers. The four headers are
 * comma-separated lists aligned by position, shortest window first in
 * Brave's examples: `X-RateLimit-Limit: 1, 15000`,
 * `X-RateLimit-Policy: 1;w=1, 15000;w=2592000`, `X-RateLimit-Remaining: 1, 1000`,
 * `X-RateLimit-Reset: 1, 1419704` (seconds until each window resets).
 */
export interface BraveRateLimitWindow {
  /** Position in the headers, 0 first. */
  index: number
  limit?: number
  /** From the policy's `w=`, in seconds. */
  windowSeconds?: number
  remaining?: number
  resetSeconds?: number
}

/** A month as Brave's policy writes it (30 days). */
export const MONTH_SECONDS = 2_592_000

/** The windows the headers describe, in header order; none when the headers are absent. */
export function parseBraveRateLimit(headers: HttpAnswer['headers']): BraveRateLimitWindow[] {
  const limits = numbers(headerValue(headers, 'x-ratelimit-limit'))
  const remaining = numbers(headerValue(headers, 'x-ratelimit-remaining'))
  const resets = numbers(headerValue(headers, 'x-ratelimit-reset'))
  const policies = (headerValue(headers, 'x-ratelimit-policy') ?? '').split(',').map((entry) => {
    const match = /(?:^|;)\s*w\s*=\s*(\d+(?:\.\d+)?)/.exec(entry)
    return match ? Number(match[1]) : undefined
  })
  const count = Math.max(limits.length, remaining.length, resets.length)
  const windows: BraveRateLimitWindow[] = []
  for (let index = 0; index < count; index++) {
    const window: BraveRateLimitWindow = { index }
    if (limits[index] !== undefined) window.limit = limits[index]
    if (policies[index] !== undefined) window.windowSeconds = policies[index]
    if (remaining[index] !== undefined) window.remaining = remaining[index]
    if (resets[index] !== undefined) window.resetSeconds = resets[index]
    windows.push(window)
  }
  return windows
}

/** The window a 429 waits out: the shortest by policy, else the first (Brave lists the per-second one first). */
export function shortestWindow(windows: readonly BraveRateLimitWindow[]): BraveRateLimitWindow | undefined {
  if (!windows.length) return undefined
  if (windows.every((window) => window.windowSeconds !== undefined)) {
    return windows.reduce((shortest, window) => (window.windowSeconds! < shortest.windowSeconds! ? window : shortest))
  }
  return windows[0]
}

/** A longer window (the monthly quota) with nothing left: waiting seconds will not help. */
export function exhaustedLongWindow(windows: readonly BraveRateLimitWindow[]): BraveRateLimitWindow | undefined {
  const shortest = shortestWindow(windows)
  return windows.find((window) => window !== shortest && window.remaining === 0)
}

/** "per-second", "monthly" or "N-second", for messages. */
export function describeWindow(window: BraveRateLimitWindow): string {
  const seconds = window.windowSeconds
  if (seconds === undefined) return window.index === 0 ? 'per-second' : 'monthly'
  if (seconds === 1) return 'per-second'
  if (seconds === MONTH_SECONDS) return 'monthly'
  return `${seconds}-second`
}

/** A wait in words: "1 s", "3 min", "16.4 days". */
export function describeDuration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`
  if (seconds < 172_800) return `${Math.round(seconds / 360) / 10} h`
  return `${Math.round(seconds / 8_640) / 10} days`
}

function numbers(value: string | undefined): Array<number | undefined> {
  if (value === undefined || !value.trim()) return []
  return value.split(',').map((part) => {
    const trimmed = part.trim()
    const number = Number(trimmed)
    return trimmed !== '' && Number.isFinite(number) && number >= 0 ? number : undefined
  })
}
