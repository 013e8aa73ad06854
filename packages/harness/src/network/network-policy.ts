import { type Context, Service } from 'cordis'
import { DomainList, describeDomainEntry, type JsonValue, NET_READ, type NetworkPolicyService, type ToolInfo, type ToolPreExecute } from 'dsh-host'

export type NetworkMode = 'allow' | 'deny' | 'allowlist'

export interface NetworkConfig {
  mode: NetworkMode
  domains: string[]
}

/** The row's `domains` as a domain list; an entry that is not an accepted form throws, naming it. */
export function parseNetworkDomains(config: Pick<NetworkConfig, 'domains'>): DomainList {
  return DomainList.parse(config.domains, 'domains')
}

/**
 * `ctx.network`: the network policy for tools that declare `net_read`.
 * `allow` lets them run; `deny` refuses them; `allowlist` lets through only
 * calls whose `url` is on an entry of `domains` (and fetch providers check
 * every redirect hop against `allowedDomains()`); a tool whose requests stay
 * within a domain list it is given (`networkScope.allowedDomains`) runs when
 * that list lies inside the allowlist. Calls that say neither are refused. An entry means what docs/security.md, "Domain lists", says.
 */
export class NetworkPolicy extends Service<NetworkConfig> implements NetworkPolicyService {
  private readonly domains: DomainList

  constructor(ctx: Context, config: NetworkConfig) {
    super(ctx, 'network', true)
    this.config = config
    this.domains = parseNetworkDomains(config)
    ctx.on('tools/pre-execute', (request) => this.check(request))
  }

  /** The entries (normalised) every hop must match, under `allowlist`; otherwise undefined. */
  allowedDomains(): string[] | undefined {
    return this.config.mode === 'allowlist' ? this.domains.texts() : undefined
  }

  /** A refusal reason for the model, or undefined to let the call run. */
  check({ tool, input }: Pick<ToolPreExecute, 'tool' | 'input'>): string | undefined {
    if (!tool.effects.includes(NET_READ)) return undefined
    switch (this.config.mode) {
      case 'allow':
        return undefined
      case 'deny':
        return `network access is switched off here (network policy mode: deny), so ${tool.name} cannot run.`
      case 'allowlist':
        return this.checkAllowlist(tool, input)
    }
  }

  /** What the policy does to a tool, in one line for the operator; undefined when it leaves the tool alone. */
  effectOn(tool: ToolInfo): string | undefined {
    if (!tool.effects.includes(NET_READ)) return undefined
    const listed = this.domains.texts().join(', ') || 'none'
    switch (this.config.mode) {
      case 'allow':
        return undefined
      case 'deny':
        return 'refused: network policy mode is deny'
      case 'allowlist':
        if (tool.networkScope?.url) return `runs only when ${tool.networkScope.url} is on the allowlist (${listed})`
        if (tool.networkScope?.allowedDomains) return `runs only with ${tool.networkScope.allowedDomains} inside the allowlist (${listed})`
        return 'refused: it does not say where its requests go, and the network policy is an allowlist'
    }
  }

  private checkAllowlist(tool: ToolInfo, input: JsonValue): string | undefined {
    const listed = this.domains.texts().join(', ') || 'none'
    const scope = tool.networkScope ?? {}
    const value = (property: string | undefined) => (property && typeof input === 'object' && input !== null && !Array.isArray(input) ? input[property] : undefined)
    if (scope.url) {
      const url = value(scope.url)
      if (typeof url !== 'string') return `${tool.name} has no ${scope.url} to check, and this network policy only allows requests to listed domains (${listed}).`
      return this.checkUrl(tool, url, listed)
    }
    if (scope.allowedDomains) {
      const property = scope.allowedDomains
      const entries = value(property)
      const how = `Call ${tool.name} with ${property} set to entries inside the allowlist (${listed}), for example ${JSON.stringify(this.domains.texts().slice(0, 3))}.`
      if (entries === undefined || entries === null) return `${tool.name} without ${property} could reach any site, and this network policy only allows requests to listed domains. ${how}`
      if (!Array.isArray(entries)) return undefined // the schema refuses it with its own message
      let requested: DomainList
      try {
        requested = DomainList.parse(entries, property)
      } catch {
        return undefined // the tool refuses an entry that is not an accepted form, naming it
      }
      const outside = this.domains.uncovered(requested)
      if (!outside) return undefined
      return `${property} entry "${outside.written}" (${describeDomainEntry(outside)}) is not inside this network policy's allowlist. ${how}`
    }
    return `${tool.name} does not say where its requests go, and this network policy only allows requests to listed domains (${listed}).`
  }

  private checkUrl(tool: ToolInfo, url: string, listed: string): string | undefined {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return undefined // Not a URL: the tool itself refuses it with its own message.
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return `${tool.name} was given a ${parsed.protocol.slice(0, -1)} URL, and this network policy's allowlist admits only http and https URLs (${listed}).`
    }
    if (this.domains.includes(parsed)) return undefined
    // With ports or paths in the list, the host alone does not say why.
    const detailed = this.domains.entries.some((entry) => entry.port !== undefined || entry.path !== undefined)
    const what = detailed ? `${parsed.origin}${parsed.pathname}` : parsed.hostname
    return `${what} is not on this network policy's allowlist (${listed}).`
  }
}
