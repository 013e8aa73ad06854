import { type Context, Schema } from 'cordis'
import { type WebConfig, WebService } from './web-service.js'

export const name = 'dsh-web'

export type Config = WebConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  searchProvider: Schema.string().default('deepseek-official').description('Id of the search provider every search goes to.'),
  fetchProvider: Schema.string().default('http').description('Id of the fetch provider every fetch goes to.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(WebService, config)
}

declare module 'cordis' {
  interface Context {
    web: WebService
  }
}

export { WebService }
export * from './errors.js'
export * from './types.js'
export * from './credential.js'
export { routeFor } from './route.js'
export { writeWebArtifact } from './artifact.js'
