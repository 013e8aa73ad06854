import { type Context, Schema } from 'cordis'
import { type NetworkConfig, NetworkPolicy } from './network-policy.js'

export const name = 'dsh-harness/network'

export type Config = NetworkConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  mode: Schema.union([Schema.const('allow' as const), Schema.const('deny' as const), Schema.const('allowlist' as const)])
    .default('allow')
    .description('allow: net_read tools run; deny: they are refused; allowlist: only requests to `domains` (and their subdomains) run.'),
  domains: Schema.array(Schema.string()).default([]).description('Domains allowed under `allowlist`.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(NetworkPolicy, config)
}


export { NetworkPolicy }
export { hostMatches } from './network-policy.js'
