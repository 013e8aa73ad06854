/**
 * Per-token limits of `dsh mcp --http`: tool calls running at once and tool
 * calls started per minute (a sliding window of the last 60 s). They hold
 * per process: N processes behind a load balancer allow up to N times each
 * figure (docs/deploy.md). A refusal names the limit and the flag that sets it.
 */

export interface CallLimitSettings {
  /** Tool calls one token may have running at once in this process. */
  maxConcurrentCalls: number
  /** Tool calls one token may start in any 60 s, in this process. */
  callsPerMinute: number
}

export const DEFAULT_HTTP_CALLS_PER_MINUTE = 120
export const DEFAULT_HTTP_MAX_CONCURRENT_CALLS = 8
const WINDOW_MS = 60_000

export interface LimitRefusal {
  /** `TOO_MANY_CALLS` (concurrency) or `CALL_RATE_LIMITED` (per minute). */
  code: 'TOO_MANY_CALLS' | 'CALL_RATE_LIMITED'
  /** The flag that sets the limit, with its value, e.g. `--calls-per-minute 120`. */
  limit: string
  value: number
  message: string
  retryAfterSeconds?: number
}

interface TokenState {
  running: number
  /** Start times of the calls of the last minute, oldest first. */
  starts: number[]
}

export class CallLimits {
  private readonly state = new Map<string, TokenState>()

  constructor(readonly settings: CallLimitSettings) {}

  /** Admits a call for `token` (a token name, or '' without auth) and returns its release, or the refusal. */
  admit(token: string, tool: string, now = Date.now()): { release(): void } | { refusal: LimitRefusal } {
    const state = this.stateOf(token, now)
    const { maxConcurrentCalls } = this.settings
    if (state.running >= maxConcurrentCalls) {
      return {
        refusal: {
          code: 'TOO_MANY_CALLS',
          limit: `--max-concurrent-calls ${maxConcurrentCalls}`,
          value: maxConcurrentCalls,
          message: `The call to ${tool} is refused: ${state.running} tool calls of ${who(token)} are already running in this process, the limit (dsh mcp --http --max-concurrent-calls ${maxConcurrentCalls}). Call again when one has finished.`,
        },
      }
    }
    const refusal = this.rateRefusal(token, tool, state, now)
    if (refusal) return { refusal }
    state.running++
    state.starts.push(now)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        state.running--
      },
    }
  }

  /**
   * Counts a call that `run_code` makes for `token` against its calls per
   * minute, or says why it is refused. Not against the calls at once: such a
   * call runs inside its run_code call, which holds one of the token's
   * slots, and run_code bounds its own calls at once (8 per run).
   */
  countNested(token: string, tool: string, now = Date.now()): LimitRefusal | undefined {
    const state = this.stateOf(token, now)
    const refusal = this.rateRefusal(token, tool, state, now)
    if (!refusal) state.starts.push(now)
    return refusal
  }

  private stateOf(token: string, now: number): TokenState {
    const state = this.state.get(token) ?? { running: 0, starts: [] }
    this.state.set(token, state)
    while (state.starts.length && state.starts[0] <= now - WINDOW_MS) state.starts.shift()
    return state
  }

  private rateRefusal(token: string, tool: string, state: TokenState, now: number): LimitRefusal | undefined {
    const { callsPerMinute } = this.settings
    if (state.starts.length < callsPerMinute) return undefined
    const retryAfterSeconds = Math.max(1, Math.ceil((state.starts[0] + WINDOW_MS - now) / 1000))
    return {
      code: 'CALL_RATE_LIMITED',
      limit: `--calls-per-minute ${callsPerMinute}`,
      value: callsPerMinute,
      retryAfterSeconds,
      message: `The call to ${tool} is refused: ${who(token)} started ${state.starts.length} tool calls in the last minute in this process, the limit (dsh mcp --http --calls-per-minute ${callsPerMinute}). Call again in ${retryAfterSeconds} s.`,
    }
  }
}

function who(token: string): string {
  return token ? `the token "${token}"` : 'this server (no auth)'
}
