// A policy plugin for the host's tests: refuses tools that declare a given effect.
import { Schema } from 'cordis'

export const name = 'test-refuse-policy'
export const Config = Schema.object({
  effect: Schema.string().required(),
})

export function apply(ctx, config) {
  ctx.on('tools/pre-execute', ({ tool }) => {
    if (tool.effects.includes(config.effect)) return `tools with the ${config.effect} effect are switched off here`
  })
}
