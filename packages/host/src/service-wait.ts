/**
 * A plugin whose services nobody provides never starts, and under most hosts
 * nothing says so: the row just sits there. `startWhenProvided` mounts the
 * plugin's body once its required services are there and, when they are
 * still missing a while after the app is ready, logs one line naming each
 * missing service and the row that would provide it. `waitingFor` tells a
 * host (dsh-harness's loader reports it as a pending row) what is missing.
 * The timer holds the process until it fires, so that an app that would
 * otherwise exit at once (nothing else running) still says why.
 */

/** The part of a Cordis context this needs. */
export interface ServiceWaitContext {
  get(name: string): unknown
  inject(inject: Record<string, { required: boolean }>, apply: (ctx: any) => void): unknown
  on(name: 'ready', listener: () => void): () => void
  effect(execute: () => () => void): unknown
  logger?: (name: string) => { warn(message: string): void }
}

export interface ServiceWaitOptions {
  /** The plugin's package name, as the log line names it. */
  plugin: string
  /** Each required service, with what provides it (e.g. `the dsh-web row`). */
  required: Record<string, string>
  optional?: string[]
  /** How long after the app is ready the line is logged (default 5 s). */
  graceMs?: number
}

const DEFAULT_GRACE_MS = 5_000

/** Each context's wait, kept for `waitingFor`; gone with the context. */
const waits = new WeakMap<object, () => string[]>()

/**
 * The required services a plugin still waits for (none once they are all
 * there), given the context its apply got; a plugin re-exports this as
 * `waitingFor`, which is how a host reports its row as pending.
 */
export function waitingFor(ctx: object): string[] {
  return waits.get(ctx)?.() ?? []
}

export function startWhenProvided(ctx: ServiceWaitContext, options: ServiceWaitOptions, apply: (ctx: any) => void): void {
  const missing = () => Object.keys(options.required).filter((service) => ctx.get(service) === undefined)
  waits.set(ctx, missing)
  const inject = Object.fromEntries([
    ...Object.keys(options.required).map((service) => [service, { required: true }] as const),
    ...(options.optional ?? []).map((service) => [service, { required: false }] as const),
  ])
  ctx.inject(inject, apply)
  ctx.on('ready', () => {
    if (!missing().length) return
    ctx.effect(() => {
      const timer = setTimeout(() => {
        const left = missing()
        if (left.length) warn(ctx, options.plugin, describeWait(options, left, options.graceMs ?? DEFAULT_GRACE_MS))
      }, options.graceMs ?? DEFAULT_GRACE_MS)
      return () => clearTimeout(timer)
    })
  })
}

/** The log line: which services, what provides each, and that the plugin starts once they are there. */
function describeWait(options: ServiceWaitOptions, missing: string[], graceMs: number): string {
  const each = missing.map((service) => `"${service}" (${options.required[service]})`).join(' and ')
  return `${options.plugin} is waiting for the service${missing.length === 1 ? '' : 's'} ${each}, which no mounted row has provided ${graceMs / 1000} s after start; it starts once ${missing.length === 1 ? 'it is' : 'they are'} there. Mount the row that provides ${missing.length === 1 ? 'it' : 'them'} (docs/host-contract.md).`
}

function warn(ctx: ServiceWaitContext, plugin: string, message: string): void {
  if (typeof ctx.logger === 'function') ctx.logger(plugin).warn(message)
  else process.emitWarning(message)
}
