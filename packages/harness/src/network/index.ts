import { type Context, Schema } from 'cordis'
import { type NetworkConfig, NetworkPolicy, parseNetworkDomains } from './network-policy.js'

export const name = 'dsh-harness/network'

export type Config = NetworkConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  mode: Schema.union([Schema.const('allow' as const), Schema.const('deny' as const), Schema.const('allowlist' as const)])
    .default('allow')
    .description('allow: net_read tools run; deny: they are refused; allowlist: only requests on an entry of `domains` run.'),
  domains: Schema.array(Schema.string())
    .default([])
    .description('Entries allowed under `allowlist`: example.com (and subdomains), *.example.com (subdomains only), addresses, CIDR ranges, with optional :port and /path (docs/security.md, "Domain lists").'),
})

export function apply(ctx: Context, config: Config) {
  // A bad entry fails this row's start, with the entry named, before the service exists.
  parseNetworkDomains(config)
  ctx.plugin(NetworkPolicy, config)
}


export { NetworkPolicy }
