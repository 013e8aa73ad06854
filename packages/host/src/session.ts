import type { JsonValue } from './json.js'
import type { SeenUrls } from './seen-urls.js'

/** Surface events feed the model's history; log-only events are an audit trail. */
export type EventVisibility = 'surface' | 'log'

export interface SessionEvent {
  seq: number
  time: string
  type: string
  visibility: EventVisibility
  data: JsonValue
}

/** The part of a session a plugin may use: append events, find its folder. */
export interface SessionHandle {
  readonly id: string
  /** The session's own folder (artifacts live below it). */
  readonly dir: string
  /** Durable once the promise settles. Log-only unless said otherwise. */
  append(type: string, data: JsonValue, options?: { visibility?: EventVisibility }): Promise<SessionEvent>
  /** Every event appended so far, surface and log-only, in order. */
  read(): Promise<SessionEvent[]>
  /**
   * The URLs this session has seen (search results, links of fetched pages,
   * redirects followed) and those the user gave, which the host declares with
   * `seenUrls.declareUserUrls(message or URLs)`: what web_fetch's provenance
   * gate admits. Kept by the process that opened the session, one set per
   * session id. A host without it cannot run the gate: under `enforce` every
   * fetch is refused, saying so.
   */
  readonly seenUrls?: SeenUrls
}

/** `ctx.session`: where sessions are created, opened and read back. */
export interface SessionsService {
  /** A new session with a fresh id (or the id given, which must not exist yet). */
  create(options?: { id?: string }): Promise<SessionHandle>
  /** An existing session; with `create`, a new one of that id when missing. */
  open(id: string, options?: { create?: boolean }): Promise<SessionHandle>
  /** Every event, surface and log-only, in order. */
  read(id: string): Promise<SessionEvent[]>
  /** What feeds the model's history: surface events only. */
  history(id: string): Promise<SessionEvent[]>
}
