import { readFileSync } from 'node:fs'
import { compose } from '../compose/boot.js'
import { serveMcp } from '../mcp/mcp-server.js'
import { findConfigDir, type GlobalOptions, type Output, printWarnings } from './commands.js'

export async function runMcp(options: GlobalOptions, io: Output): Promise<number> {
  const composition = await compose({ configDir: findConfigDir(options.configDir), preset: options.preset, overlays: options.config })
  printWarnings(composition, io, 'dsh mcp')
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  try {
    await serveMcp({ composition, log: io.err, version })
    return 0
  } finally {
    await composition.dispose()
  }
}
