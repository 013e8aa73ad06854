import type { JsonValue } from './json.js'

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
