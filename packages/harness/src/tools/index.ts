import { type Context, Schema } from 'cordis'
import { type ToolsConfig, ToolsService } from './tools-service.js'

export const name = 'dsh-harness/tools'

export type Config = ToolsConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  mode: Schema.union([Schema.const('native' as const), Schema.const('ptc' as const)]).default('native')
    .description('How tools reach the model: `native`, each tool with its own schema; `ptc`, one run_code tool whose code calls the others.'),
  runCodeTimeoutMs: Schema.natural().role('ms').min(100).max(600_000).default(30_000).description('run_code: default wall-clock limit of a run, tool calls included.'),
  runCodeMaxTimeoutMs: Schema.natural().role('ms').min(100).max(600_000).default(120_000).description('run_code: the largest timeout_ms the model may ask for.'),
  runCodeMemoryMb: Schema.natural().min(16).max(1024).default(64).description('run_code: memory limit of the interpreter, in MB: the most WebAssembly memory it may hold (16 MB at least, its module\'s minimum).'),
  runCodeMaxResultBytes: Schema.natural().min(1024).max(256 * 1024 * 1024).default(10 * 1024 * 1024).description('run_code: bytes of JSON a run may return as its result (and send as one tool call\'s input) at most.'),
  outputThreshold: Schema.natural().min(1000).default(50_000).description('run_code: characters of output above which the whole is saved as an artifact.'),
  inputMaxDepth: Schema.natural().min(2).max(1000).default(64).description('Deepest nesting of objects and arrays in one tool input; deeper inputs are refused with INVALID_ARGUMENT.'),
  inputMaxBytes: Schema.natural().min(1024).max(64 * 1024 * 1024).default(1024 * 1024).description('Largest tool input, in bytes of its JSON text; larger inputs are refused with INVALID_ARGUMENT.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(ToolsService, config)
}


export { ToolsService }
