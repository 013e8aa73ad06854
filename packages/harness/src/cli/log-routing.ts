import { Logger } from 'cordis'
import { useColor } from './color.js'

let routed = false
let quiet = 0

/**
 * Logs (Cordis and plugins) go to stderr, coloured only as useColor allows;
 * stdout carries only command output. While the composition starts, Cordis's
 * report of a plugin that threw (its stack) is held back: the command says
 * which row failed and why, in one line.
 */
export function routeLogsToStderr(): void {
  if (routed) return
  routed = true
  for (const target of Logger.targets) {
    if (!useColor(process.stderr)) target.colors = 0
    target.record = (record) => {
      if (quiet && record.name === 'app' && record.type === 'error') return
      process.stderr.write((Logger as unknown as { render(target: unknown, record: unknown): string }).render(target, record) + '\n')
    }
  }
}

/** Runs `task` with Cordis's own error reports held back. */
export async function withoutStartErrors<T>(task: () => Promise<T>): Promise<T> {
  quiet++
  try {
    return await task()
  } finally {
    quiet--
  }
}
