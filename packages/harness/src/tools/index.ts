import { type Context, Schema } from 'cordis'
import type { Awaitable } from 'cosmokit'
import type { ToolPreExecute } from './tool-types.js'
import { type ToolsConfig, ToolsService } from './tools-service.js'

export const name = 'dsh-harness/tools'

export type Config = ToolsConfig

export const Config: Schema<Config> = Schema.object({
  mode: Schema.const('native' as const).default('native').description('How tools reach the model: `native`, each tool with its own schema.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(ToolsService, config)
}

declare module 'cordis' {
  interface Context {
    tools: ToolsService
  }
  interface Events {
    /** Return a reason to refuse the call before it runs; the model sees the reason. */
    'tools/pre-execute'(request: ToolPreExecute): Awaitable<string | undefined | void>
  }
}

export { ToolsService }
export type * from './tool-types.js'
export type { ToolInputSchema } from './validate-input.js'
