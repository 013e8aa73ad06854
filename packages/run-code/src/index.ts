import { type Context, Schema } from 'cordis'
import { refuseUnknownKeys, startWhenProvided } from 'dsh-host'
import { createRunCodeTool, type RunCodeSettings } from './run-code-tool.js'

export const name = 'dsh-run-code'

/**
 * run_code's code calls the other tools through `ctx.tools`: their list, and
 * the one invocation path. Waited for inside (see apply), so that the config
 * is checked at once and a row whose tools service nobody provides says so.
 */
export const inject = { tools: { required: false } }

export type Config = Required<Pick<RunCodeSettings, 'timeoutMs' | 'maxTimeoutMs' | 'memoryMb' | 'maxResultBytes' | 'outputThreshold'>>

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  timeoutMs: Schema.natural().role('ms').min(100).max(600_000).default(30_000).description('Default wall-clock limit of a run, tool calls included.'),
  maxTimeoutMs: Schema.natural().role('ms').min(100).max(600_000).default(120_000).description('The largest timeout_ms the model may ask for.'),
  memoryMb: Schema.natural().min(16).max(1024).default(64).description('Memory limit of the interpreter, in MB: the most WebAssembly memory it may hold (16 MB at least, its module\'s minimum).'),
  maxResultBytes: Schema.natural().min(1024).max(256 * 1024 * 1024).default(10 * 1024 * 1024).description('Bytes of JSON a run may return as its result (and send as one tool call\'s input) at most.'),
  outputThreshold: Schema.natural().min(1000).default(50_000).description('Characters of output above which the whole is saved as an artifact.'),
})

/** Registers run_code, the PTC tool: the tools row's `mode: ptc` shows it to the model alone. */
export function apply(ctx: Context, config: Config) {
  refuseUnknownKeys(name, Config, config)
  const required = { tools: "a tools service: dsh-harness/tools in dsh-harness, or your host's own (docs/host-contract.md)" }
  startWhenProvided(ctx, { plugin: name, required }, (ready: Context) => {
    ready.tools.register(createRunCodeTool(ready.tools, config))
  })
}

/** The services this plugin still waits for, given the context its apply got: how a host reports the row as pending. */
export { waitingFor } from 'dsh-host'

export { createRunCodeTool, RUN_CODE_DEFAULTS, type RunCodeInput, type RunCodeSettings, type RunCodeTools } from './run-code-tool.js'
