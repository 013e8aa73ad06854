import type { LookupAddress as DnsLookupAddress } from 'node:dns'
import type { Socket } from 'node:net'
import type { SecureContext } from 'node:tls'
import type { Agent, buildConnector } from 'undici'
import type { LookupAddress } from './address-policy.js'
import { loadUndici } from './lazy-undici.js'

/**
 * Step 4 of the address policy: an undici dispatcher for one hop that can only
 * connect to the address that was vetted. Name resolution inside `net.connect`
 * goes through `connect.lookup`, which answers with the pinned address and
 * never asks DNS again; the TLS server name and Host header stay the URL's host.
 * As a second line, the connector refuses any other host name and checks the
 * peer address of the socket it got. Certificates are always verified
 * (against `secureContext` when given, else Node's default trust).
 */
export interface PinnedDispatcher {
  agent: Agent
  /** The address connections go to. */
  address: LookupAddress
}

export async function createPinnedDispatcher(
  host: string,
  pinned: LookupAddress,
  timeouts: { connectMs: number; headersMs: number; bodyMs: number },
  secureContext?: SecureContext,
): Promise<PinnedDispatcher> {
  const undici = await loadUndici()
  const lookup = (
    _hostname: string,
    options: { all?: boolean } | number | undefined,
    callback: (error: Error | null, address: string | DnsLookupAddress[], family?: number) => void,
  ) => {
    const all = typeof options === 'object' && options !== null && options.all === true
    if (all) callback(null, [{ address: pinned.address, family: pinned.family }])
    else callback(null, pinned.address, pinned.family)
  }
  const connector = undici.buildConnector({
    lookup,
    timeout: timeouts.connectMs,
    autoSelectFamily: false,
    rejectUnauthorized: true,
    ...(secureContext ? { secureContext } : {}),
  } as buildConnector.BuildOptions)
  const connect: buildConnector.connector = (options, callback) => {
    const bare = (name: string) => (name.startsWith('[') ? name.slice(1, -1) : name).toLowerCase().replace(/\.$/, '')
    const hostname = bare(options.hostname)
    if (hostname !== bare(host)) {
      callback(new Error(`refusing to connect to ${hostname}: this dispatcher is pinned to ${host}`), null)
      return
    }
    connector(options, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no socket'), null)
      const remote = (socket as Socket).remoteAddress
      if (remote && remote.replace(/^::ffff:/, '') !== pinned.address.replace(/^::ffff:/, '')) {
        socket.destroy()
        return callback(new Error(`connected to ${remote}, not the vetted ${pinned.address}`), null)
      }
      callback(null, socket)
    })
  }
  const agent = new undici.Agent({
    connect,
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    connections: 1,
    pipelining: 1,
  })
  return { agent, address: pinned }
}
