import { lookup } from 'node:dns/promises'
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { BlockList, isIP } from 'node:net'
import { redactProxy } from 'dsh-host'

/**
 * What `dsh doctor` may touch on the network: a base URL on a loopback or
 * private address, never a public one, so that doctor sends nothing to a
 * vendor. Nothing here is used by any other command.
 */

const NON_PUBLIC = new BlockList()
NON_PUBLIC.addSubnet('127.0.0.0', 8, 'ipv4') // loopback
NON_PUBLIC.addSubnet('10.0.0.0', 8, 'ipv4') // private (RFC 1918)
NON_PUBLIC.addSubnet('172.16.0.0', 12, 'ipv4')
NON_PUBLIC.addSubnet('192.168.0.0', 16, 'ipv4')
NON_PUBLIC.addSubnet('169.254.0.0', 16, 'ipv4') // link-local
NON_PUBLIC.addSubnet('100.64.0.0', 10, 'ipv4') // shared address space (carrier NAT)
NON_PUBLIC.addAddress('::1', 'ipv6')
NON_PUBLIC.addSubnet('fc00::', 7, 'ipv6') // unique local
NON_PUBLIC.addSubnet('fe80::', 10, 'ipv6') // link-local

/** Whether an IP address is loopback or private (IPv4-mapped IPv6 read as IPv4). */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  const plain = mapped ? mapped[1] : address
  const family = isIP(plain)
  if (!family) return false
  return NON_PUBLIC.check(plain, family === 4 ? 'ipv4' : 'ipv6')
}

export type ProbeTarget = { probe: true; address: string; family: number } | { probe: false; why: string }

/**
 * Where a probe of `url` may go: its host when that is a literal loopback or
 * private address, or a name that resolves only to such addresses (the probe
 * then connects to the address found, not to a second lookup's answer).
 * `lookupNames: false` decides on literal addresses alone (a vendor's default
 * endpoint is never even looked up).
 */
export async function probeTarget(url: URL, options: { lookupNames: boolean }): Promise<ProbeTarget> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) return isNonPublicAddress(host) ? { probe: true, address: host, family: isIP(host) } : { probe: false, why: 'public endpoint' }
  if (!options.lookupNames) return { probe: false, why: 'public endpoint' }
  let found: { address: string; family: number }[]
  try {
    found = await lookup(host, { all: true })
  } catch (error: any) {
    return { probe: false, why: `${host} does not resolve (${error?.code ?? error?.message ?? error})` }
  }
  if (!found.length || !found.every((entry) => isNonPublicAddress(entry.address))) return { probe: false, why: 'public endpoint' }
  return { probe: true, address: found[0].address, family: found[0].family }
}

export type ProbeResult = { reached: true; status: number } | { reached: false; error: string }

/** One GET of `url` at `address`, no redirect followed, nothing read past the status line. */
export function probe(url: URL, target: { address: string; family: number }, timeoutMs = 3_000): Promise<ProbeResult> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  const options: RequestOptions & { servername?: string } = {
    method: 'GET',
    timeout: timeoutMs,
    headers: { 'user-agent': 'dsh-doctor' },
    // The vetted address, whatever a second lookup would say.
    lookup: (_host, _options, callback: any) => {
      if ((_options as { all?: boolean })?.all) callback(null, [{ address: target.address, family: target.family }])
      else callback(null, target.address, target.family)
    },
  }
  return new Promise((resolve) => {
    const outgoing = send(url, options, (response) => {
      resolve({ reached: true, status: response.statusCode ?? 0 })
      response.destroy()
    })
    outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })))
    outgoing.on('error', (error: any) => resolve({ reached: false, error: error?.code ? `${error.code}: ${error.message}` : String(error?.message ?? error) }))
    outgoing.end()
  })
}

/**
 * A URL or proxy value fit for doctor's output. A URL written the one way
 * every client reads alike (`scheme://user:password@host...`, one `@`, in
 * the authority) keeps its user name and shows its password as `***`
 * (`http://user:***@host:port`); a lone user name, which is often a token,
 * is `***` too. Any other text with an `@` (no scheme: `user:pass@host:3128`;
 * an unencoded `@` or `/` in the password; leading space) is redacted by the
 * contract's proxy policy (redactProxy: everything before its last `@`
 * hidden), never parsed into a form that leaves the password in place.
 */
export function redactUrl(text: string): string {
  if (!text.includes('@')) return text
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@\\]*@[^@]*$/.test(text) && URL.canParse(text)) {
    const url = new URL(text)
    if (url.password) url.password = '***'
    else if (url.username) url.username = '***'
    return url.href.endsWith('/') && !text.endsWith('/') ? url.href.slice(0, -1) : url.href
  }
  return redactProxy(text)
}
