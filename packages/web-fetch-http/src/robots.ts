/**
 * robots.txt (RFC 9309), for the fetch row's `respectRobots`: the rules of
 * the group that names our product token, else of the `*` group; the
 * longest matching rule decides, an allow winning a tie. Parsing is one pass
 * over a bounded text; matching is linear in the pattern and the path.
 */

/** The product token robots.txt groups are matched against (case-insensitively, RFC 9309 2.2.1). */
export const ROBOTS_PRODUCT_TOKEN = 'dsh-web'

/** Characters of a robots.txt read at most: RFC 9309 asks crawlers to parse at least 500 KiB. */
export const ROBOTS_MAX_CHARS = 512 * 1024

export interface RobotsRule {
  allow: boolean
  /** The path pattern as written (`*` any run, `$` at the end anchors it). */
  pattern: string
  /** The line as the file wrote it, for the refusal. */
  line: string
}

export interface RobotsRules {
  /** The user-agent whose group applies: our token, `*`, or none (no group applies: everything is allowed). */
  agent: string | undefined
  rules: RobotsRule[]
}

/** The rules that apply to `token` in a robots.txt text. */
export function parseRobots(text: string, token = ROBOTS_PRODUCT_TOKEN): RobotsRules {
  const wanted = token.toLowerCase()
  const ours: RobotsRule[] = []
  const anyone: RobotsRule[] = []
  let oursFound = false
  let anyoneFound = false
  // The agents of the group being read; a user-agent line after a rule starts a new group.
  let agents: string[] = []
  let inRules = false
  for (const raw of text.slice(0, ROBOTS_MAX_CHARS).split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*$/, '').trim()
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const key = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (key === 'user-agent') {
      if (inRules) agents = []
      inRules = false
      agents.push(value.toLowerCase())
      if (value.toLowerCase() === wanted) oursFound = true
      if (value === '*') anyoneFound = true
      continue
    }
    if (key !== 'allow' && key !== 'disallow') continue
    inRules = true
    // An empty disallow allows everything: no rule.
    if (!value) continue
    const rule = { allow: key === 'allow', pattern: value, line: raw.trim() }
    if (agents.includes(wanted)) ours.push(rule)
    if (agents.includes('*')) anyone.push(rule)
  }
  if (oursFound) return { agent: token, rules: ours }
  if (anyoneFound) return { agent: '*', rules: anyone }
  return { agent: undefined, rules: [] }
}

/** The rule that decides for a path (with its query), or undefined when none matches (allowed). */
export function decidingRule(rules: RobotsRules, pathAndQuery: string): RobotsRule | undefined {
  if (pathAndQuery === '/robots.txt') return undefined
  let best: RobotsRule | undefined
  for (const rule of rules.rules) {
    if (!matches(rule.pattern, pathAndQuery)) continue
    if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow && !best.allow)) best = rule
  }
  return best
}

/** RFC 9309 2.2.3: `*` matches any run of characters, a trailing `$` the end of the path; otherwise a prefix match. Iterative, linear in both. */
function matches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$')
  const parts = (anchored ? pattern.slice(0, -1) : pattern).split('*').map(normalise)
  const target = normalise(path)
  if (!target.startsWith(parts[0]!)) return false
  let at = parts[0]!.length
  for (let index = 1; index < parts.length; index++) {
    const part = parts[index]!
    if (index === parts.length - 1 && anchored) return target.length - part.length >= at && target.endsWith(part)
    const found = target.indexOf(part, at)
    if (found < 0) return false
    at = found + part.length
  }
  return anchored ? at === target.length : true
}

/** Percent-encodings compared in one case (RFC 9309 2.2.2 matches them as the octets they stand for). */
function normalise(text: string): string {
  return text.replace(/%[0-9a-fA-F]{2}/g, (escape) => escape.toUpperCase())
}
