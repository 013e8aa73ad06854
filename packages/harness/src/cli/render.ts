import type { RowState } from '../compose/boot.js'
import type { CredentialDescription, CredentialReference } from '../credentials/index.js'
import type { SessionEvent, ToolInfo } from 'dsh-host'
import { useColor } from './color.js'
import { escapeForTerminal, renderForTerminal } from './terminal.js'

// Every text here is for people: it passes through escapeForTerminal, which
// writes control characters from content (a page, a provider, a config) as
// visible escapes. --json output is JSON-escaped instead, by JSON.stringify.

export function renderRows(rows: RowState[], layers: string[], problems: string[]): string {
  const lines = [`layers: ${layers.join(' -> ')}`, '']
  const width = Math.max(...rows.map((row) => row.id.length), 2)
  for (const row of rows) {
    const extra = row.status === 'pending' ? ` (waiting for ${row.waitingFor?.join(', ')})` : row.status === 'failed' ? ` (${row.error})` : ''
    lines.push(`${row.id.padEnd(width)}  ${row.status.padEnd(8)}  ${row.name}${extra}`)
    if (row.status !== 'disabled') lines.push(...renderConfig(row, ' '.repeat(width + 2)))
    if (row.proxy) lines.push(renderProxy(row.proxy, ' '.repeat(width + 2)))
  }
  if (problems.length) lines.push('', ...problems.map((problem) => `problem: ${problem}`))
  return escapeForTerminal(lines.join('\n'))
}

/** One line per config key: its resolved value and where it came from (a file, the command line or the plugin's default). */
function renderConfig(row: RowState, indent: string): string[] {
  const config = (typeof row.config === 'object' && row.config !== null ? row.config : {}) as Record<string, unknown>
  const keys = Object.keys(config)
  if (!keys.length) return [`${indent}config: (none)`]
  const shown = keys.map((key) => `${key}: ${JSON.stringify(config[key])}`)
  const width = Math.max(...shown.map((text) => text.length))
  return [`${indent}config:`, ...shown.map((text, index) => `${indent}  ${text.padEnd(width)}  <- ${row.configSources[keys[index]] ?? 'plugin default'}`)]
}

/** The route a row's requests take: per scheme, the proxy (credentials hidden) and the setting it came from, or direct. */
function renderProxy(proxy: NonNullable<RowState['proxy']>, indent: string): string {
  const one = (scheme: string, route: NonNullable<RowState['proxy']>['http']) => `${scheme} ${route ? `via ${route.proxy} (${route.from})` : 'direct'}`
  const noProxy = proxy.noProxy ? `; except ${JSON.stringify(proxy.noProxy.value)} (${proxy.noProxy.from})` : ''
  return `${indent}proxy: ${one('http', proxy.http)}, ${one('https', proxy.https)}${noProxy}`
}

export function renderTools(tools: Array<ToolInfo & { networkPolicy?: string; unavailable?: string }>): string {
  if (!tools.length) return 'This composition exposes no tools.'
  return escapeForTerminal(tools
    .map((tool) => {
      const properties = tool.inputSchema.properties ?? {}
      const required = new Set(tool.inputSchema.required ?? [])
      const args = Object.entries(properties).map(([name, schema]) => {
        const type = (schema as { type?: unknown }).type ?? 'any'
        return `    ${name}${required.has(name) ? '' : '?'}: ${Array.isArray(type) ? type.join(' | ') : String(type)}${(schema as { description?: string }).description ? `  ${(schema as { description?: string }).description}` : ''}`
      })
      const policy = [...(tool.unavailable ? [`  not available: ${tool.unavailable} (dsh mcp does not serve it)`] : []), ...(tool.networkPolicy ? [`  network policy: ${tool.networkPolicy}`] : [])]
      return [`${tool.name}${tool.effects.length ? `  [${tool.effects.join(', ')}]` : ''}`, ...policy, `  ${tool.description.split('\n').join('\n  ')}`, ...args].join('\n')
    })
    .join('\n\n'))
}

/** A tool's content for people: styled markdown when stdout takes colour (useColor), else as text. */
export function renderOutcome(content: string): string {
  return useColor(process.stdout) ? renderForTerminal(content) : escapeForTerminal(content)
}

/** One line per credential: its name, where it is set (never its value), and the rows and keys that name it. */
export function renderCredentials(list: Array<CredentialDescription & { namedBy: CredentialReference[] }>): string {
  if (!list.length) return 'No credentials are stored, and the composition references none.'
  const width = Math.max(...list.map((item) => item.name.length))
  return escapeForTerminal(list.map((item) => {
    const where = item.configured ? `${item.source}${item.shadowed ? ' (also stored; the environment wins)' : ''}  <redacted>` : 'not set'
    const by = item.namedBy.length ? `named by ${item.namedBy.map((ref) => `${ref.row}.${ref.key}`).join(', ')}` : 'named by no row'
    return `${item.name.padEnd(width)}  ${where}  ${by}`
  }).join('\n'))
}

export function renderEvents(events: SessionEvent[]): string {
  return escapeForTerminal(events
    .map((event) => `#${event.seq} ${event.time} ${event.type}${event.visibility === 'log' ? ' [log]' : ''}\n  ${JSON.stringify(event.data)}`)
    .join('\n'))
}
