import { type Context, Schema } from 'cordis'
import { defaultHome } from '../home.js'
import { type SessionConfig, SessionService } from './session-service.js'

export const name = 'dsh-harness/session'

export type Config = SessionConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  home: Schema.string().default(defaultHome()).description('Folder whose sessions/ holds the session logs. Defaults to $DSH_HOME, else ~/.dsh.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(SessionService, config)
}


export { SessionService }
export { Session, assertSessionId } from './session-log.js'
