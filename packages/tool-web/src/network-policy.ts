import type { Context } from 'cordis'

/** The part of the host's optional `network` policy service this package reads. */
export interface NetworkPolicyView {
  /** The domains every fetch hop must be on; a list only under `mode: allowlist`. */
  allowedDomains(): string[] | undefined
}

/**
 * The policy's domain list for this call, read fresh every time (the policy
 * may be mounted, replaced or removed while the tools stay registered).
 */
export function policyAllowedDomains(ctx: Context): string[] | undefined {
  const network = ctx.get('network') as Partial<NetworkPolicyView> | undefined
  if (!network || typeof network.allowedDomains !== 'function') return undefined
  const domains = network.allowedDomains()
  return Array.isArray(domains) ? [...domains] : undefined
}
