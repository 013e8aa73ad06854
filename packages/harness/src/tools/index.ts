import { type Context, Schema } from 'cordis'
import { type ToolsConfig, ToolsService } from './tools-service.js'

export const name = 'dsh-harness/tools'

export type Config = ToolsConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  mode: Schema.union([Schema.const('native' as const), Schema.const('ptc' as const)]).default('native')
    .description('How tools reach the model: `native`, each tool with its own schema; `ptc`, run_code alone (the dsh-run-code row), whose code calls the others.'),
  inputMaxDepth: Schema.natural().min(2).max(1000).default(64).description('Deepest nesting of objects and arrays in one tool input; deeper inputs are refused with INVALID_ARGUMENT.'),
  inputMaxBytes: Schema.natural().min(1024).max(64 * 1024 * 1024).default(1024 * 1024).description('Largest tool input, in bytes of its JSON text; larger inputs are refused with INVALID_ARGUMENT.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(ToolsService, config)
}


export { ToolsService }
