import type { LookupAddress as DnsLookupAddress } from 'node:dns'
import type { Socket } from 'node:net'
import type { SecureContext } from 'node:tls'
import type { Agent, buildConnector } from 'undici'
import { canonicalHost } from 'dsh-host'
import { WebError } from 'dsh-web'
import type { LookupAddress } from './address-policy.js'
import { loadUndici } from './lazy-undici.js'

/**
 * Step 4 of the address policy: an undici dispatcher that can only connect to
 * the address that was vetted. Name resolution inside `net.connect` goes
 * through `connect.lookup`, which answers with the pinned address and never
 * asks DNS again; the TLS server name and Host header stay the URL's host.
 * As a second line, the connector refuses any other host name and checks the
 * peer address of every socket it opens. Certificates are always verified
 * (against `secureContext` when given, else Node's default trust).
 */
export interface PinnedDispatcher {
  agent: Agent
  /** The address connections go to. */
  address: LookupAddress
  /** True once the agent has been handed out before: its connection may have been closed by the server while idle. */
  reused: boolean
  /** Ends this use of the agent (it stays kept); call once, when the response is read or abandoned. */
  release(): void
}

export interface PinnedTimeouts {
  connectMs: number
  headersMs: number
  bodyMs: number
}

/** Connections one pinned agent opens at most per origin: concurrent fetches of one site are not queued behind each other. */
export const PINNED_CONNECTIONS = 4
/** An idle connection is closed after this long (or sooner, when the server's Keep-Alive header says so). */
export const PINNED_IDLE_MS = 4_000
/** Pinned agents kept at most; the least recently used is closed first. */
export const MAX_PINNED_AGENTS = 32

/** The canonical host, or '' for a name that has none (it then matches nothing). */
function bare(name: string): string {
  try {
    return canonicalHost(name)
  } catch {
    return ''
  }
}

async function createPinnedAgent(host: string, pinned: LookupAddress, timeouts: PinnedTimeouts, secureContext?: SecureContext): Promise<Agent> {
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
    const hostname = bare(options.hostname)
    if (!hostname || hostname !== bare(host)) {
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
  return new undici.Agent({
    connect,
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    connections: PINNED_CONNECTIONS,
    pipelining: 1,
    keepAliveTimeout: PINNED_IDLE_MS,
    keepAliveMaxTimeout: PINNED_IDLE_MS,
  })
}

/**
 * The pinned agents of one fetcher, kept so that a later fetch (or redirect
 * hop) that vets to the same address reuses the open connection. The key is
 * everything that decides where a connection may go and how it is verified:
 * the host, the vetted address and family, the TLS trust and the timeouts. So
 * every fetch is still vetted, and a DNS answer that changes gives a new key
 * and a new connection, never the old socket. At most `maxAgents` are kept
 * when idle: the least recently used one that no fetch is using is closed
 * (more are kept only while more fetches than that run at once).
 */
interface KeptAgent {
  agent: Promise<Agent>
  uses: number
  /** Fetches using it now: an agent in use is never the one evicted. */
  active: number
}

export class PinnedAgents {
  private readonly agents = new Map<string, KeptAgent>()
  private readonly contexts = new WeakMap<SecureContext, number>()
  private nextContext = 1
  private closed = false

  constructor(private readonly maxAgents = MAX_PINNED_AGENTS) {}

  async take(host: string, pinned: LookupAddress, timeouts: PinnedTimeouts, secureContext?: SecureContext): Promise<PinnedDispatcher> {
    if (this.closed) throw new WebError('WEB_FETCH_FAILED', 'The fetch provider has been shut down.')
    let context = 0
    if (secureContext) {
      context = this.contexts.get(secureContext) ?? this.nextContext++
      this.contexts.set(secureContext, context)
    }
    const key = JSON.stringify([bare(host), pinned.address, pinned.family, context, timeouts.connectMs, timeouts.headersMs, timeouts.bodyMs])
    let entry = this.agents.get(key)
    if (entry) this.agents.delete(key)
    else entry = { agent: createPinnedAgent(host, pinned, timeouts, secureContext), uses: 0, active: 0 }
    // Last in the map is the most recently used.
    this.agents.set(key, entry)
    entry.active++
    this.evict()
    const reused = entry.uses++ > 0
    const kept = entry
    let released = false
    const release = () => {
      if (released) return
      released = true
      kept.active--
      this.evict()
    }
    try {
      return { agent: await entry.agent, address: pinned, reused, release }
    } catch (error) {
      release()
      throw error
    }
  }

  /** Closes the least recently used idle agents over the bound (their requests in flight, if any, finish first). */
  private evict() {
    if (this.agents.size <= this.maxAgents) return
    for (const [key, entry] of this.agents) {
      if (this.agents.size <= this.maxAgents) return
      if (entry.active > 0) continue
      this.agents.delete(key)
      void entry.agent.then((agent) => agent.close()).catch(() => {})
    }
  }

  /** Agents kept now (for tests and diagnostics). */
  get size(): number {
    return this.agents.size
  }

  /** Destroys every agent and its sockets; later fetches fail. */
  async destroy(): Promise<void> {
    this.closed = true
    const agents = [...this.agents.values()]
    this.agents.clear()
    await Promise.all(agents.map((entry) => entry.agent.then((agent) => agent.destroy()).catch(() => {})))
  }
}
