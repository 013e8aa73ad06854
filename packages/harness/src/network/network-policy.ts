import { type Context, Service } from 'cordis'
import { DomainList, NET_READ, type NetworkPolicyService, type ToolPreExecute } from 'dsh-host'

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
 * every redirect hop against `allowedDomains()`), and refuses calls without a
 * URL. An entry means what docs/security.md, "Domain lists", says.
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
      case 'allowlist': {
        const listed = this.domains.texts().join(', ') || 'none'
        const url = typeof input === 'object' && input !== null && !Array.isArray(input) ? input.url : undefined
        if (typeof url !== 'string') {
          return `${tool.name} has no URL to check, and this network policy only allows requests to listed domains (${listed}).`
        }
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
  }
}
