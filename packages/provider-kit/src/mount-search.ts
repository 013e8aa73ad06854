import type { Context } from 'cordis'
import { resolveCredential } from 'dsh-web'
import type { ModelSearchDeps, ModelSearchProvider } from './model-api-client.js'

/**
 * What every search provider's `apply` does once its row's keys are checked:
 * builds the provider with the seam's per-call credential helper bound to
 * this plugin's context, registers it through the plugin's own `ctx.web`
 * (so disposing the plugin removes it), and closes its connections when the
 * plugin is disposed.
 */
export function mountSearchProvider(ctx: Context, create: (deps: ModelSearchDeps) => ModelSearchProvider): void {
  const provider = create({ resolveCredential: (request) => resolveCredential(ctx, request) })
  ctx.web.registerSearchProvider(provider)
  ctx.effect(() => () => void provider.close())
}
