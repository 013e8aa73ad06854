import type { ToolInfo } from './tools.js'

/** The effect a tool declares when it reads from the network. */
export const NET_READ = 'net_read'

/** `ctx.network`: the host's network policy, as tools and providers read it. */
export interface NetworkPolicyService {
  /**
   * The domain-list entries every request and redirect hop must match (see
   * `DomainList`), when the policy limits requests to a list; otherwise undefined.
   */
  allowedDomains(): string[] | undefined
  /** What the policy does to a tool, in one line for the operator (`dsh tools`, `dsh doctor`); undefined when it leaves the tool alone. */
  effectOn?(tool: ToolInfo): string | undefined
}
