import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { assertPrivateFile, assertPrivateHome } from '../private-home.js'
import type { Check } from './doctor-checks.js'
import { redactUrl } from './doctor-network.js'

/** The fix an UNSAFE_PATH message ends with (`... Fix: chmod 700 /path`), else the whole message. */
function fixOf(text: string): string {
  const at = text.lastIndexOf('Fix: ')
  return at >= 0 ? text.slice(at + 'Fix: '.length) : text
}

/** 5. $DSH_HOME and the trust-anchor files in it, by the private-files policy every command applies. */
export async function homeChecks(home: string): Promise<Check[]> {
  const checks: Check[] = []
  try {
    const exists = await assertPrivateHome(home)
    checks.push({ id: 'home', status: 'ok', message: exists ? `$DSH_HOME ${home} is yours and private` : `$DSH_HOME ${home} does not exist yet; it is created (mode 0700) on first use` })
    if (!exists) return checks
  } catch (error: any) {
    const text = String(error?.message ?? error)
    checks.push({ id: 'home', status: 'fail', message: text, fix: fixOf(text) })
  }
  for (const [id, file, what] of [
    ['credentials-file', 'credentials.json', 'The credential store'],
    ['personal-overlay', 'cordis.yml', 'The personal overlay'],
  ] as const) {
    const path = join(home, file)
    try {
      const exists = await assertPrivateFile(path, what)
      checks.push({ id, status: 'ok', message: exists ? `${what} ${path} is yours and private` : `${what} ${path} does not exist` })
    } catch (error: any) {
      const text = String(error?.message ?? error)
      checks.push({ id, status: 'fail', message: text, fix: fixOf(text) })
    }
  }
  return checks
}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy']

/** 6. Proxy variables set, with any password redacted. */
export function proxyCheck(env: NodeJS.ProcessEnv = process.env): Check {
  const set = PROXY_VARIABLES.filter((name) => env[name])
  if (!set.length) return { id: 'proxy', status: 'ok', message: 'no proxy variables set (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY, upper or lower case)' }
  const shown = set.map((name) => `${name}=${/no_proxy/i.test(name) ? env[name] : redactUrl(env[name]!)}`)
  return { id: 'proxy', status: 'ok', message: `proxy variables set: ${shown.join(', ')}` }
}

/** 7. This Node against engines.node of a package.json (dsh-harness's own). */
export async function nodeCheck(packageFile: string, version = process.versions.node): Promise<Check> {
  let range: string | undefined
  try {
    range = JSON.parse(await readFile(packageFile, 'utf8'))?.engines?.node
  } catch {
    range = undefined
  }
  if (typeof range !== 'string') return { id: 'node', status: 'ok', message: `Node ${version} (no engines.node found in ${packageFile})` }
  const satisfied = satisfies(version, range)
  if (satisfied === undefined) return { id: 'node', status: 'warn', message: `Node ${version}; engines.node "${range}" is a range doctor does not read`, fix: `check by hand that Node ${version} satisfies ${range}` }
  return satisfied
    ? { id: 'node', status: 'ok', message: `Node ${version} satisfies engines.node ${range}` }
    : { id: 'node', status: 'fail', message: `Node ${version} does not satisfy engines.node ${range}`, fix: `install a Node that satisfies ${range}` }
}

type Version = [number, number, number]

function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(text.trim())
  if (!match) return undefined
  const part = (value: string | undefined) => (value === undefined || value === 'x' || value === '*' ? 0 : Number(value))
  return [Number(match[1]), part(match[2]), part(match[3])]
}

function compare(a: Version, b: Version): number {
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index] - b[index]
  return 0
}

/** A semver range of comparators (`>=20.6`, `^20.6.0 || >=22`, `~20.6`, `20.x`): whether `version` satisfies it; undefined when it is not such a range. */
export function satisfies(version: string, range: string): boolean | undefined {
  const current = parseVersion(version)
  if (!current) return undefined
  const alternatives = range.split('||').map((alternative) => alternative.trim().split(/\s+/).filter(Boolean))
  let any = false
  for (const comparators of alternatives) {
    let all = true
    for (const comparator of comparators) {
      const match = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(comparator)
      const wanted = match && parseVersion(match[2])
      if (!match || !wanted) return undefined
      const order = compare(current, wanted)
      const ok =
        match[1] === '>=' ? order >= 0
        : match[1] === '<=' ? order <= 0
        : match[1] === '>' ? order > 0
        : match[1] === '<' ? order < 0
        : match[1] === '^' ? order >= 0 && current[0] === wanted[0]
        : match[1] === '~' ? order >= 0 && current[0] === wanted[0] && current[1] === wanted[1]
        : /[x*]|^\d+(\.\d+)?$/.test(match[2]) ? current[0] === wanted[0] && (!/^\d+\.\d+/.test(match[2]) || current[1] === wanted[1])
        : order === 0
      all &&= ok
    }
    any ||= all
  }
  return any
}
