import type { Composition } from '../compose/boot.js'
import type { ToolsService } from '../tools/index.js'

/** The part of ctx.web read here; the harness does not depend on dsh-web. */
interface WebSelection {
  config: { searchProvider?: string; fetchProvider?: string }
  listProviders(): { search: string[]; fetch: string[] }
}

/** The tools of dsh-tool-web and the provider kind each calls through ctx.web. */
const WEB_TOOLS: Record<string, 'search' | 'fetch'> = { web_search: 'search', web_fetch: 'fetch' }

/**
 * Tools that cannot work in this composition because the provider they call
 * is not registered (its row failed, is disabled, or the web row names an id
 * no row registers), with the reason. A provider that is registered but not
 * available (a missing key) is not listed: the key is read at every call, so
 * the tool works once it is set, and its error says how.
 */
export function toolsWithoutProvider(composition: Composition): Map<string, string> {
  const missing = new Map<string, string>()
  const tools = composition.ctx.get('tools') as ToolsService | undefined
  if (!tools) return missing
  const web = composition.ctx.get('web') as WebSelection | undefined
  for (const tool of tools.list()) {
    const kind = WEB_TOOLS[tool.name]
    if (!kind) continue
    if (!web) {
      missing.set(tool.name, 'no web service is mounted')
      continue
    }
    const id = web.config[`${kind}Provider`]
    if (!id) {
      missing.set(tool.name, `the web row names no ${kind} provider (set \`${kind}Provider\` in its config)`)
      continue
    }
    if (!web.listProviders()[kind].includes(id)) {
      const down = composition.rows().filter((row) => row.status !== 'mounted' && row.status !== 'disabled').map((row) => `"${row.id}" ${row.status}`)
      missing.set(tool.name, `its ${kind} provider "${id}" is not registered${down.length ? ` (rows not started: ${down.join(', ')})` : ''}`)
    }
  }
  return missing
}

/** Withholds those tools from the roster and from calls, saying so once per tool. */
export function withholdToolsWithoutProvider(composition: Composition, warn: (text: string) => void): void {
  const tools = composition.ctx.get('tools') as ToolsService | undefined
  for (const [name, reason] of toolsWithoutProvider(composition)) {
    tools?.withhold(name, reason)
    warn(`${name} is not served: ${reason}`)
  }
}
