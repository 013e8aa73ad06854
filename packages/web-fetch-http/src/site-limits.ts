import type { LimitRule } from 'dsh-host'
import type { Release, SharedState } from 'dsh-web'

/** tldts (the Public Suffix List, 220 kB of code), imported on the first limited request: a fetcher without limits never loads it. */
let tldts: Promise<typeof import('tldts')> | undefined

/**
 * The site a request counts against: the registrable domain of its host
 * (example.co.uk for www.example.co.uk, by the Public Suffix List through
 * tldts, private suffixes included, so that two github.io sites are two
 * sites), or the host itself for an address or a name without a public
 * suffix (localhost).
 */
export async function registrableDomain(hostname: string): Promise<string> {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  const { getDomain } = await (tldts ??= import('tldts'))
  return getDomain(host, { allowPrivateDomains: true }) ?? host
}

export interface SiteLimits {
  /** The limit of every site. */
  perDomain: LimitRule
  /** Limits of named sites (registrable domains, or addresses), instead of `perDomain`. */
  overrides: Record<string, LimitRule>
}

/**
 * The limits of one fetch: before each hop's request, the hop's site's
 * limit is passed (a slot and a request, waiting within the deadline), and
 * the slot of the hop before is given back first, so a redirect within one
 * site never waits for itself. `close` gives back the last slot once the
 * body is read.
 */
export class FetchLimits {
  private held?: Release

  constructor(
    private readonly state: SharedState,
    private readonly limits: SiteLimits,
    private readonly call: { signal: AbortSignal; deadline: number },
    private readonly leaseMs: number,
    private readonly notes: string[],
  ) {}

  /** Passes the limit of the URL's site. */
  async beforeRequest(url: URL): Promise<void> {
    await this.close()
    const site = await registrableDomain(url.hostname)
    const override = Object.hasOwn(this.limits.overrides, site)
    const rule = override ? this.limits.overrides[site]! : this.limits.perDomain
    this.held = await this.state.acquire(
      {
        bucket: `fetch:${site}`,
        rule,
        subject: `the site ${site}`,
        what: `Fetching ${url.origin}`,
        setting: override ? `limitPerDomainOverrides["${site}"] of the fetch row` : 'limitPerDomain of the fetch row',
        leaseMs: this.leaseMs,
      },
      this.call,
      this.notes,
    )
  }

  async close(): Promise<void> {
    const held = this.held
    this.held = undefined
    await held?.()
  }
}

/** The limits of a fetcher's options, the overrides' sites in lower case as hosts are compared. */
export function readSiteLimits(perDomain: LimitRule = {}, overrides: Record<string, LimitRule> = {}): SiteLimits {
  return { perDomain, overrides: Object.fromEntries(Object.entries(overrides).map(([site, rule]) => [site.toLowerCase(), rule])) }
}

/** Whether any limit is set at all (so that a fetcher without limits never touches the store for them). */
export function hasSiteLimits(limits: SiteLimits): boolean {
  const set = (rule: LimitRule) => (rule.requests ?? 0) > 0 || (rule.concurrency ?? 0) > 0
  return set(limits.perDomain) || Object.values(limits.overrides).some(set)
}
