import { isIP } from 'node:net'
import { HostNameError, canonicalHost } from 'dsh-host'
import { UsageError } from './errors.js'

/** The packages whose rows take the operator's --private-host and --resolve: every fetch provider, the renderer's too. */
export const FETCH_PACKAGES = ['dsh-web-fetch-http', 'dsh-web-fetch-browser']

export interface OperatorFlags {
  privateHost: string[]
  resolve: string[]
}

/**
 * `--resolve HOST:ADDRESS`: the fetch provider answers HOST with ADDRESS, on
 * every port (its `resolve` setting maps names, not name and port). curl's
 * three-part `HOST:PORT:ADDRESS` is refused with the form dsh takes, since
 * the port would be silently ignored; an IPv6 address may be bracketed.
 */
export function parseResolve(entry: string): [host: string, address: string] {
  const at = entry.indexOf(':')
  const written = entry.slice(0, at)
  const rest = entry.slice(at + 1)
  const address = rest.replace(/^\[(.*)\]$/, '$1')
  if (at > 0 && isIP(address)) return [flagHost('--resolve', written, entry), address]
  const host = written.toLowerCase()
  const curl = /^(\d{1,5}):(.+)$/.exec(rest)
  if (at > 0 && curl && isIP(curl[2].replace(/^\[(.*)\]$/, '$1'))) {
    const bare = curl[2].replace(/^\[(.*)\]$/, '$1')
    throw new UsageError(
      `--resolve takes HOST:ADDRESS, not curl's HOST:PORT:ADDRESS ("${entry}"): dsh answers the name with the address on every port. Write --resolve ${host}:${isIP(bare) === 6 ? `[${bare}]` : bare}.`,
    )
  }
  throw new UsageError(`--resolve takes HOST:ADDRESS with an IP address, like example.com:10.0.0.5 or example.com:[::1], not "${entry}".`)
}

/**
 * A host name given to a flag in the one canonical form the fetch provider
 * compares (dsh-host's canonicalHost: Unicode to punycode as the URL parser
 * writes it, case, one trailing dot), so that no spelling is ignored without
 * a word; one without a canonical form is a usage error saying why.
 */
function flagHost(flag: string, host: string, entry: string): string {
  try {
    return canonicalHost(host)
  } catch (error) {
    if (!HostNameError.is(error)) throw error
    throw new UsageError(`${flag} "${entry}": ${error.message}`)
  }
}

/** A --private-host entry: an address or CIDR range as written (the provider checks them), a name in its canonical form. */
function privateHost(entry: string): string {
  const text = entry.trim()
  const bare = text.replace(/^\[(.*)\]$/, '$1')
  if (text.includes('/') || isIP(bare)) return text
  return flagHost('--private-host', text, entry)
}

/** The fetch rows' config from the flags, merged after every layer; undefined when none is given. */
export function operatorPatches(flags: OperatorFlags): { packages: string[]; patch: Record<string, unknown> } | undefined {
  const patch: Record<string, unknown> = {}
  if (flags.privateHost.length) patch.privateHosts = flags.privateHost.map(privateHost)
  if (flags.resolve.length) patch.resolve = Object.fromEntries(flags.resolve.map(parseResolve))
  return Object.keys(patch).length ? { packages: FETCH_PACKAGES, patch } : undefined
}
