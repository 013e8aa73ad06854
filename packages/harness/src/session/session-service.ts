import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type Context, Service } from 'cordis'
import { BoundedSeenUrls, type SeenUrls, type SessionEvent, type SessionsService } from 'dsh-host'
import { assertPrivateHome } from '../private-home.js'
import { DEFAULT_LEASE_MS, DEFAULT_LOCK_TIMEOUT_MS } from '../file-lock.js'
import { type LogReport, readLog } from './log-reader.js'
import { SessionError } from './session-errors.js'
import { SessionLeases } from './session-leases.js'
import { assertSessionId, EVENTS_FILE, eventsOf, newSessionId, Session, type SessionLogOptions } from './session-log.js'

export interface SessionConfig extends SessionLogOptions {
  home: string
  /** How long a session this process opened stays held without a renewal (renewed every third of it while the process runs). */
  leaseMs?: number
  /** How many URLs each session's seen-URL set keeps before it drops the oldest (default SEEN_URLS_MAX). */
  seenUrlsMax?: number
}

declare module 'cordis' {
  interface Events {
    /** An event is on disk in a session this process opened (for progress lines and other live views of a call). */
    'session/event-append'(session: string, event: SessionEvent): void
  }
}

/** `ctx.session`: durable session logs under `<home>/sessions/<id>/events.jsonl`. */
export class SessionService extends Service<SessionConfig> implements SessionsService {
  readonly root: string
  private readonly leases: SessionLeases
  /**
   * Each session's seen URLs, by id, for as long as this process runs: every
   * handle of a session opened here shares one set. Memory only: another
   * process opening the session starts with none (its host declares the
   * user's URLs there again).
   */
  private readonly seenUrls = new Map<string, SeenUrls>()

  constructor(ctx: Context, config: SessionConfig) {
    super(ctx, 'session', true)
    this.config = config
    this.root = join(config.home, 'sessions')
    this.leases = new SessionLeases(config.leaseMs ?? DEFAULT_LEASE_MS, config.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS)
  }

  /** The composition is closing: the sessions it opened are no longer held. */
  protected override stop(): void {
    this.leases.releaseAll()
    this.seenUrls.clear()
  }

  /** Opens a session and leases it, so `dsh session prune` leaves it alone while this process runs. */
  private async openHeld(id: string, create: boolean): Promise<Session> {
    let seenUrls = this.seenUrls.get(id)
    if (!seenUrls) this.seenUrls.set(id, (seenUrls = new BoundedSeenUrls(this.config.seenUrlsMax)))
    const session = await Session.open(this.config.home, id, { ...this.config, create, onAppend: this.announce(id), seenUrls })
    await this.leases.hold(id, session.dir, session.logPath)
    return session
  }

  /** A new session with a fresh id (or the id given, which must not exist yet). */
  async create(options: { id?: string } = {}): Promise<Session> {
    const id = options.id ?? newSessionId()
    assertSessionId(id)
    if (await this.exists(id)) throw new SessionError('SESSION_EXISTS', `Session "${id}" already exists; open it instead.`)
    return this.openHeld(id, true)
  }

  /** An existing session; with `create`, a new one of that id when missing. */
  open(id: string, options: { create?: boolean } = {}): Promise<Session> {
    return this.openHeld(id, !!options.create)
  }

  private announce(id: string): (event: SessionEvent) => void {
    return (event) => this.ctx.emit('session/event-append', id, event)
  }

  async exists(id: string): Promise<boolean> {
    assertSessionId(id)
    try {
      await lstat(join(this.root, id, EVENTS_FILE))
      return true
    } catch (error: any) {
      if (error?.code === 'ENOENT') return false
      throw error
    }
  }

  /** Every readable event of a session and a report of its torn, unterminated or damaged lines. */
  async inspect(id: string): Promise<LogReport> {
    assertSessionId(id)
    await assertPrivateHome(this.config.home)
    try {
      return await readLog(join(this.root, id, EVENTS_FILE))
    } catch (error: any) {
      if (error?.code === 'ENOENT') throw new SessionError('SESSION_NOT_FOUND', `There is no session "${id}" under ${this.root}.`)
      throw error
    }
  }

  /** Every event, surface and log-only, in order (`SESSION_LOG_DAMAGED` when a line in the middle is damaged). */
  async read(id: string): Promise<SessionEvent[]> {
    return eventsOf(await this.inspect(id), join(this.root, id, EVENTS_FILE))
  }

  /** What feeds the model's history: surface events only. */
  async history(id: string): Promise<SessionEvent[]> {
    return (await this.read(id)).filter((event) => event.visibility === 'surface')
  }

  async list(): Promise<string[]> {
    try {
      return (await readdir(this.root, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
    } catch (error: any) {
      if (error?.code === 'ENOENT') return []
      throw error
    }
  }
}
