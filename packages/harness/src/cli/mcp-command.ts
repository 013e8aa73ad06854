import { readFileSync } from 'node:fs'
import { compose } from '../compose/boot.js'
import { DEFAULT_MAX_CONCURRENT_CALLS, serveMcp } from '../mcp/mcp-server.js'
import { DEFAULT_MAX_MESSAGE_BYTES } from '../mcp/stdio-transport.js'
import { findConfigDir, type GlobalOptions, type Output, printWarnings, UsageError } from './commands.js'

export interface McpFlags {
  /** `--max-message-bytes N` as given. */
  maxMessageBytes?: string
  /** `--max-concurrent-calls N` as given. */
  maxConcurrentCalls?: string
}

export async function runMcp(options: GlobalOptions, io: Output, flags: McpFlags = {}): Promise<number> {
  const maxMessageBytes = whole(flags.maxMessageBytes, '--max-message-bytes', 1024, DEFAULT_MAX_MESSAGE_BYTES)
  const maxConcurrentCalls = whole(flags.maxConcurrentCalls, '--max-concurrent-calls', 1, DEFAULT_MAX_CONCURRENT_CALLS)
  const composition = await compose({ configDir: findConfigDir(options.configDir), preset: options.preset, overlays: options.config })
  printWarnings(composition, io, 'dsh mcp')
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  try {
    await serveMcp({ composition, log: io.err, version, maxMessageBytes, maxConcurrentCalls })
    return 0
  } finally {
    await composition.dispose()
  }
}

function whole(text: string | undefined, flag: string, minimum: number, fallback: number): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < minimum) {
    throw new UsageError(`${flag} takes a whole number of at least ${minimum}, not "${text}" (default ${fallback}).`)
  }
  return value
}
