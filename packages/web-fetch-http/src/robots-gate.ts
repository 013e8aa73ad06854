import { redactUrl, WebError } from 'dsh-web'
import { decidingRule, parseRobots, ROBOTS_MAX_CHARS, ROBOTS_PRODUCT_TOKEN, type RobotsRules } from './robots.js'

/** What the gate needs of the fetcher: robots.txt read through the same egress policy, as text. */
export type ReadRobots = (url: string, signal: AbortSignal) => Promise<{ status: number; text: string }>

/** Origins whose robots.txt is kept at once, least recently used first out. */
const MAX_ORIGINS = 256
/** How long one origin's answer is kept (RFC 9309 2.4: no longer than 24 hours). */
const KEEP_MS = 60 * 60 * 1000
/** How long a robots.txt that could not be read keeps disallowing before it is asked again. */
const UNREACHABLE_KEEP_MS = 60 * 1000

type Verdict = { rules: RobotsRules } | { unreachable: string }

/**
 * The fetch row's `respectRobots`: before a URL is fetched, its origin's
 * robots.txt is read (through the fetcher, so the same address policy,
 * proxy route and limits apply) and kept per origin, bounded. RFC 9309 2.3.1:
 * a 4xx answer (none there) allows everything; a 5xx or no answer at all
 * disallows everything until it is read again.
 */
export class RobotsGate {
  private readonly kept = new Map<string, { verdict: Verdict; until: number }>()

  constructor(private readonly read: ReadRobots, private readonly now: () => number = Date.now) {}

  /** Resolves when `url` may be fetched; a refusal is WEB_BLOCKED_URL naming the rule, or that robots.txt could not be read. */
  async check(url: URL, signal: AbortSignal): Promise<void> {
    const verdict = await this.verdict(url.origin, signal)
    const robots = `${url.origin}/robots.txt`
    const setting = 'respectRobots of the web-fetch-http row is on'
    if ('unreachable' in verdict) {
      throw new WebError(
        'WEB_BLOCKED_URL',
        `${robots} could not be read (${verdict.unreachable}), and robots.txt that cannot be read disallows everything (RFC 9309) while ${setting}: ${redactUrl(url)} was not fetched. Try again later, or read another source.`,
        { details: { url: redactUrl(url), reason: 'robots', robots, rule: 'unreachable' }, retryable: true },
      )
    }
    const rule = decidingRule(verdict.rules, url.pathname + url.search)
    if (!rule || rule.allow) return
    throw new WebError(
      'WEB_BLOCKED_URL',
      `${robots} disallows ${redactUrl(url)} for ${ROBOTS_PRODUCT_TOKEN} (the rule "${rule.line}" of its group for ${verdict.rules.agent === '*' ? 'every crawler (*)' : ROBOTS_PRODUCT_TOKEN}), and ${setting}. Read another source; the site asks crawlers not to fetch this page.`,
      { details: { url: redactUrl(url), reason: 'robots', robots, rule: rule.line }, retryable: false },
    )
  }

  private async verdict(origin: string, signal: AbortSignal): Promise<Verdict> {
    const entry = this.kept.get(origin)
    if (entry && entry.until > this.now()) {
      this.kept.delete(origin)
      this.kept.set(origin, entry)
      return entry.verdict
    }
    let verdict: Verdict
    try {
      const answer = await this.read(`${origin}/robots.txt`, signal)
      if (answer.status >= 200 && answer.status <= 299) verdict = { rules: parseRobots(answer.text.slice(0, ROBOTS_MAX_CHARS)) }
      else if (answer.status >= 400 && answer.status <= 499) verdict = { rules: { agent: undefined, rules: [] } }
      else verdict = { unreachable: `HTTP ${answer.status}` }
    } catch (error) {
      // The call's own cancel or deadline is the call's outcome, not the site's robots.txt.
      if (signal.aborted) throw error
      verdict = { unreachable: WebError.is(error) ? error.code : String((error as Error)?.message ?? error) }
    }
    this.kept.set(origin, { verdict, until: this.now() + ('unreachable' in verdict ? UNREACHABLE_KEEP_MS : KEEP_MS) })
    while (this.kept.size > MAX_ORIGINS) this.kept.delete(this.kept.keys().next().value!)
    return verdict
  }
}
