import { isIP } from 'node:net'
import { UsageError } from './errors.js'

/** The row that takes the operator's --private-host and --resolve. */
export const FETCH_ROW = 'web-fetch-http'

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
  const host = entry.slice(0, at).toLowerCase()
  const rest = entry.slice(at + 1)
  const address = rest.replace(/^\[(.*)\]$/, '$1')
  if (at > 0 && isIP(address)) return [host, address]
  const curl = /^(\d{1,5}):(.+)$/.exec(rest)
  if (at > 0 && curl && isIP(curl[2].replace(/^\[(.*)\]$/, '$1'))) {
    const bare = curl[2].replace(/^\[(.*)\]$/, '$1')
    throw new UsageError(
      `--resolve takes HOST:ADDRESS, not curl's HOST:PORT:ADDRESS ("${entry}"): dsh answers the name with the address on every port. Write --resolve ${host}:${isIP(bare) === 6 ? `[${bare}]` : bare}.`,
    )
  }
  throw new UsageError(`--resolve takes HOST:ADDRESS with an IP address, like example.com:10.0.0.5 or example.com:[::1], not "${entry}".`)
}

/** The fetch row's config from the flags, merged after every layer; undefined when none is given. */
export function operatorPatches(flags: OperatorFlags): Record<string, Record<string, unknown>> | undefined {
  const patch: Record<string, unknown> = {}
  if (flags.privateHost.length) patch.privateHosts = flags.privateHost
  if (flags.resolve.length) patch.resolve = Object.fromEntries(flags.resolve.map(parseResolve))
  return Object.keys(patch).length ? { [FETCH_ROW]: patch } : undefined
}
