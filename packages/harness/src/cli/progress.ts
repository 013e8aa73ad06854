import type { RetryNoticeLike } from './retry-notice.js'
import { escapeForTerminal } from './terminal.js'

/**
 * A progress line on stderr while a command waits: a spinner with what it
 * waits for on a terminal; elsewhere (a pipe, a log file, --json) nothing but
 * the retries, one line each, since those are the waits a person asks about.
 */
export interface Progress {
  /** A provider retry about to wait: said with its length and reason. */
  retry(notice: RetryNoticeLike): void
  stop(): void
}

export function startProgress(label: string, stderr: NodeJS.WriteStream = process.stderr): Progress {
  const write = (text: string) => stderr.write(escapeForTerminal(text))
  if (!stderr.isTTY) {
    return { retry: (notice) => void write(`dsh: ${describeRetry(notice)}\n`), stop() {} }
  }
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
  let index = 0
  let text = label
  let until = 0
  const draw = () => {
    const left = until ? ` (${Math.max(0, Math.ceil((until - Date.now()) / 1000))} s left)` : ''
    stderr.write(`\r\x1b[2K${frames[index++ % frames.length]} `)
    write(`${text}${left}`)
  }
  const timer = setInterval(draw, 80)
  timer.unref()
  let stopped = false
  return {
    retry(notice) {
      text = `${label} ${describeRetry(notice)}`
      until = Date.now() + notice.waitMs
    },
    stop() {
      if (stopped) return
      stopped = true
      clearInterval(timer)
      stderr.write('\r\x1b[2K')
    },
  }
}

/** "DeepSeek answered HTTP 429 (rate limited): waiting 7 s (its retry-after) before retry 1 of 2". */
export function describeRetry(notice: RetryNoticeLike): string {
  const seconds = Number((notice.waitMs / 1000).toFixed(1))
  const from = notice.waitFrom === 'retry-after' ? 'as its retry-after asks' : 'backing off'
  return `${notice.reason}: waiting ${seconds} s (${from}) before retry ${notice.retry} of ${notice.maxRetries}`
}
