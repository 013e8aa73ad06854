import { writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { compose, listOverlays, listPresets, resolvePackage } from '../compose/boot.js'
import { readLayer } from '../compose/composition-files.js'
import { isSchema } from '../compose/plugin-config.js'
import { type ConfigSection, renderConfigReference } from '../docs/config-reference.js'
import { renderToolsReference } from '../docs/tools-reference.js'
import type { ToolsService } from '../tools/index.js'
import { findConfigDir, type GlobalOptions, type Output } from './commands.js'
import { routeLogsToStderr } from './log-routing.js'

/** The presets whose rosters the tools reference documents, in order. */
const REFERENCE_PRESETS = ['standard', 'ptc']

/** `dsh docs tools|config [FILE]`: a reference made from the code, printed or written to FILE. */
export async function runDocs(options: GlobalOptions, what: 'tools' | 'config', file: string | undefined, io: Output): Promise<number> {
  routeLogsToStderr()
  const configDir = findConfigDir(options.configDir)
  const text = what === 'tools' ? await toolsReference(configDir, io) : await configReference(configDir)
  if (file) {
    await writeFile(file, text)
    io.err(`dsh: wrote ${file}`)
  } else io.out(text)
  return 0
}

async function toolsReference(configDir: string, io: Output): Promise<string> {
  const sections = []
  for (const preset of REFERENCE_PRESETS) {
    // Only the shipped files: a personal overlay must not leak into the docs.
    const composition = await compose({ configDir, preset, home: '/nonexistent-dsh-home-for-docs' })
    for (const warning of composition.warnings) io.err(`dsh: warning: ${warning}`)
    try {
      const tools = composition.ctx.get('tools') as ToolsService
      sections.push({ preset, tools: tools.roster() })
    } finally {
      await composition.dispose()
    }
  }
  return renderToolsReference(sections)
}

/**
 * Every package a shipped file mounts (the base, each preset and each
 * shipped overlay, so an installed dsh documents the optional providers too), in
 * the order they first appear, with its Config schema.
 */
async function configReference(configDir: string): Promise<string> {
  const files = [
    join(configDir, 'base.cordis.yml'),
    ...listPresets(configDir).map((preset) => join(configDir, 'presets', `${preset}.cordis.yml`)),
    ...listOverlays(configDir).map((overlay) => join(configDir, 'overlays', `${overlay}.cordis.yml`)),
  ]
  const sections = new Map<string, ConfigSection>()
  for (const file of files) {
    for (const row of (await readLayer(file)).rows) {
      if (!row.name) continue
      const section = sections.get(row.name) ?? { package: row.name, mountedBy: [] }
      // The config folder's files as `config/...` (the repo root's config/ links to the shipped one); a folder of one's own as a path.
      const inConfig = relative(configDir, file)
      const shown = inConfig.startsWith('..') ? relative(process.cwd(), file) : join('config', inConfig)
      if (!section.mountedBy.includes(shown)) section.mountedBy.push(shown)
      sections.set(row.name, section)
    }
  }
  for (const section of sections.values()) {
    const module = await import(pathToFileURL(resolvePackage(section.package, [configDir])).href)
    const plugin = module.default && (typeof module.default === 'function' || typeof module.default.apply === 'function') ? module.default : module
    const declared: unknown = plugin.Config ?? plugin.schema
    if (isSchema(declared)) section.schema = declared
  }
  return renderConfigReference([...sections.values()])
}
