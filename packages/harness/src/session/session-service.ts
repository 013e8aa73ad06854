import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type Context, Service } from 'cordis'
import type { SessionEvent, SessionsService } from 'dsh-host'
import { assertSessionId, EVENTS_FILE, newSessionId, readEvents, Session } from './session-log.js'

export interface SessionConfig {
  home: string
}

/** `ctx.session`: durable session logs under `<home>/sessions/<id>/events.jsonl`. */
export class SessionService extends Service<SessionConfig> implements SessionsService {
  readonly root: string

  constructor(ctx: Context, config: SessionConfig) {
    super(ctx, 'session', true)
    this.config = config
    this.root = join(config.home, 'sessions')
  }

  /** A new session with a fresh id (or the id given, which must not exist yet). */
  async create(options: { id?: string } = {}): Promise<Session> {
    const id = options.id ?? newSessionId()
    assertSessionId(id)
    if (await this.exists(id)) throw new Error(`Session "${id}" already exists; open it instead.`)
    return Session.open(this.root, id, { create: true })
  }

  /** An existing session; with `create`, a new one of that id when missing. */
  open(id: string, options: { create?: boolean } = {}): Promise<Session> {
    return Session.open(this.root, id, { create: !!options.create })
  }

  async exists(id: string): Promise<boolean> {
    assertSessionId(id)
    try {
      await readEvents(join(this.root, id, EVENTS_FILE))
      return true
    } catch (error: any) {
      if (error?.code === 'ENOENT') return false
      throw error
    }
  }

  /** Every event, surface and log-only, in order. */
  async read(id: string): Promise<SessionEvent[]> {
    assertSessionId(id)
    try {
      return await readEvents(join(this.root, id, EVENTS_FILE))
    } catch (error: any) {
      if (error?.code === 'ENOENT') throw new Error(`There is no session "${id}" under ${this.root}.`)
      throw error
    }
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
