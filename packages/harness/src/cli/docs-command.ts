import { writeFile } from 'node:fs/promises'
import { compose } from '../compose/boot.js'
import { renderToolsReference } from '../docs/tools-reference.js'
import type { ToolsService } from '../tools/index.js'
import { findConfigDir, type GlobalOptions, type Output, printWarnings, UsageError } from './commands.js'

/** The presets whose rosters the reference documents, in order. */
const REFERENCE_PRESETS = ['standard', 'ptc']

export async function runDocs(options: GlobalOptions, args: string[], io: Output): Promise<number> {
  const [what, ...rest] = args
  if (what !== 'tools' || rest.length > 1) throw new UsageError('usage: dsh docs tools [FILE]  (prints the tools reference, or writes it to FILE)')
  const sections = []
  for (const preset of REFERENCE_PRESETS) {
    // Only the shipped files: a personal overlay must not leak into the docs.
    const composition = await compose({ configDir: findConfigDir(options.configDir), preset, home: '/nonexistent-dsh-home-for-docs' })
    printWarnings(composition, io)
    try {
      const tools = composition.ctx.get('tools') as ToolsService
      sections.push({ preset, tools: tools.roster() })
    } finally {
      await composition.dispose()
    }
  }
  const text = renderToolsReference(sections)
  if (rest[0]) {
    await writeFile(rest[0], text)
    io.err(`dsh: wrote ${rest[0]}`)
  } else io.out(text)
  return 0
}
