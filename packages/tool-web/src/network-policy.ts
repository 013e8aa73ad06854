import type { Context } from 'cordis'
import type { NetworkPolicyService } from 'dsh-host'

/**
 * The policy's domain list for this call, read fresh every time (the policy
 * may be mounted, replaced or removed while the tools stay registered).
 */
export function policyAllowedDomains(ctx: Context): string[] | undefined {
  const network = ctx.get('network') as Partial<NetworkPolicyService> | undefined
  if (!network || typeof network.allowedDomains !== 'function') return undefined
  const domains = network.allowedDomains()
  return Array.isArray(domains) ? [...domains] : undefined
}
