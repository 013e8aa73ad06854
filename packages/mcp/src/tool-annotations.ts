import type { ToolInfo } from 'dsh-host'

/**
 * MCP tool annotations (`title`, `readOnlyHint`, `openWorldHint`), derived
 * from the effects each tool declares, so a new tool is annotated by what it
 * says it does rather than by a list kept here:
 * - no effects: read-only, closed world (it only computes);
 * - `net_read`: read-only (GET only, nothing changed), open world (the web);
 * - `code_exec` (run_code): its code runs in a sandbox whose only way out is
 *   the other tools, so it is read-only when every tool it can call is, and
 *   open world when any of them is;
 * - any other effect: not read-only, open world (nothing is promised).
 */

export interface McpToolAnnotations {
  title: string
  readOnlyHint: boolean
  openWorldHint: boolean
  destructiveHint?: boolean
}

const TITLES: Record<string, string> = {
  web_fetch: 'Fetch a web page',
  web_search: 'Search the web',
  run_code: 'Run code that calls the tools',
}

const NET_READ = 'net_read'
const CODE_EXEC = 'code_exec'

interface Hints {
  readOnly: boolean
  openWorld: boolean
}

function effectHints(effects: string[], nested: Hints): Hints {
  let readOnly = true
  let openWorld = false
  for (const effect of effects) {
    if (effect === NET_READ) openWorld = true
    else if (effect === CODE_EXEC) {
      readOnly &&= nested.readOnly
      openWorld ||= nested.openWorld
    } else {
      readOnly = false
      openWorld = true
    }
  }
  return { readOnly, openWorld }
}

/** The annotations of `tool`; `callable` are the tools a `code_exec` tool's code can call. */
export function annotateTool(tool: ToolInfo, callable: ToolInfo[]): McpToolAnnotations {
  const nested = callable
    .filter((other) => other.name !== tool.name && !other.effects.includes(CODE_EXEC))
    .map((other) => effectHints(other.effects, { readOnly: true, openWorld: false }))
    .reduce((all, hints) => ({ readOnly: all.readOnly && hints.readOnly, openWorld: all.openWorld || hints.openWorld }), { readOnly: true, openWorld: false })
  const hints = effectHints(tool.effects, nested)
  return {
    title: TITLES[tool.name] ?? titleOf(tool.name),
    readOnlyHint: hints.readOnly,
    openWorldHint: hints.openWorld,
    ...(hints.readOnly ? {} : { destructiveHint: true }),
  }
}

function titleOf(name: string): string {
  const words = name.split('_').filter(Boolean).join(' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}
