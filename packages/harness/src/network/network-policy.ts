import { type Context, Service } from 'cordis'
import { NET_READ, type NetworkPolicyService, type ToolPreExecute } from 'dsh-host'

export type NetworkMode = 'allow' | 'deny' | 'allowlist'

export interface NetworkConfig {
  mode: NetworkMode
  domains: string[]
}

/** Whether `host` is one of `domains` or a subdomain of one. */
export function hostMatches(host: string, domains: string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '').replace(/^\[|\]$/g, '')
  return domains.some((domain) => name === domain || name.endsWith(`.${domain}`))
}

export function normaliseDomain(domain: string): string {
  const trimmed = domain.trim().toLowerCase().replace(/\.$/, '')
  try {
    return new URL(`http://${trimmed}/`).hostname
  } catch {
    return trimmed
  }
}

/**
 * `ctx.network`: the network policy for tools that declare `net_read`.
 * `allow` lets them run; `deny` refuses them; `allowlist` lets through only
 * calls whose `url` is on a listed domain (and fetch providers check every
 * redirect hop against `allowedDomains()`), and refuses calls without a URL.
 */
export class NetworkPolicy extends Service<NetworkConfig> implements NetworkPolicyService {
  private readonly domains: string[]

  constructor(ctx: Context, config: NetworkConfig) {
    super(ctx, 'network', true)
    this.config = config
    this.domains = config.domains.map(normaliseDomain).filter(Boolean)
    ctx.on('tools/pre-execute', (request) => this.check(request))
  }

  /** The domains every hop must stay on, under `allowlist`; otherwise undefined. */
  allowedDomains(): string[] | undefined {
    return this.config.mode === 'allowlist' ? [...this.domains] : undefined
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
        const url = typeof input === 'object' && input !== null && !Array.isArray(input) ? input.url : undefined
        if (typeof url !== 'string') {
          return `${tool.name} has no URL to check, and this network policy only allows requests to listed domains (${this.domains.join(', ') || 'none'}).`
        }
        let host: string
        try {
          host = new URL(url).hostname
        } catch {
          return undefined // Not a URL: the tool itself refuses it with its own message.
        }
        if (hostMatches(host, this.domains)) return undefined
        return `${host} is not on this network policy's allowlist (${this.domains.join(', ') || 'none'}).`
      }
    }
  }
}
