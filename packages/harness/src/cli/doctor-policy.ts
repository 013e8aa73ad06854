import type { ToolInfo } from 'dsh-host'
import type { Composition } from '../compose/boot.js'
import type { ToolsService } from '../tools/index.js'
import type { Check } from './doctor-checks.js'

interface PolicyLike {
  config: { mode: string; domains: string[] }
  effectOn(tool: ToolInfo): string | undefined
}

/**
 * 10. What the network policy does to each tool the model can call: under
 * `deny` or an allowlist, a tool refused outright is a warning (it stays
 * listed, and every call fails), one limited to listed domains is ok with
 * how to call it.
 */
export function networkPolicyChecks(composition: Composition): Check[] {
  const policy = composition.ctx.get('network') as PolicyLike | undefined
  const tools = composition.ctx.get('tools') as ToolsService | undefined
  if (!policy) return [{ id: 'network', status: 'ok', message: 'no network policy row: tools that read the network run unchecked' }]
  const { mode, domains } = policy.config
  if (mode === 'allow') return [{ id: 'network', status: 'ok', message: 'network policy mode: allow' }]
  const checks: Check[] = [{ id: 'network', status: 'ok', message: `network policy mode: ${mode}${mode === 'allowlist' ? ` (${domains.join(', ') || 'no domains'})` : ''}` }]
  for (const tool of tools?.list() ?? []) {
    const effect = policy.effectOn(tool)
    if (!effect) continue
    const refused = effect.startsWith('refused')
    checks.push(
      refused
        ? { id: `network.${tool.name}`, status: 'warn', message: `${tool.name}: ${effect}; the model still sees it, and every call fails`, fix: `disable the row that registers ${tool.name}, or change the network row's mode or domains` }
        : { id: `network.${tool.name}`, status: 'ok', message: `${tool.name}: ${effect}` },
    )
  }
  return checks
}

/** Variables people set for other tools, which a dsh provider does not read: set, they suggest a setting that is not in force. */
const IGNORED: Array<{ name: string; instead: string; by: string }> = [
  { name: 'OPENAI_BASE_URL', instead: 'OPENAI_SEARCH_BASE_URL', by: 'the OpenAI search provider (openai-official)' },
]

export function ignoredVariableChecks(env: Record<string, string | undefined> = process.env): Check[] {
  return IGNORED.filter(({ name }) => env[name]).map(({ name, instead, by }) => ({
    id: `env.${name}`,
    status: 'warn' as const,
    message: `${name} is set but not read: ${by} reads ${instead}${env[instead] ? ` (set)` : ' (not set), or baseURL in its row'}`,
    fix: `set ${instead} (or baseURL in the provider's row) if searches should go there; ${name} stays for other OpenAI clients`,
  }))
}
