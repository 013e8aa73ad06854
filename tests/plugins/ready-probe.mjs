// A plugin of a foreign host that calls web_fetch at its own start, the way
// docs/host-contract.md says to: wait for the tools and for the web row's
// providers first, each with a deadline. It prints one line, DSH-PROBE <json>,
// with what the call returned (or the typed error that ended the wait).
import { whenToolsRegistered } from 'dsh-host'

export const name = 'ready-probe'
export const inject = ['tools', 'web']

export function apply(ctx, config) {
  ctx.on('ready', async () => {
    // A timer the process holds on to: AbortSignal.timeout() alone can be
    // collected while nothing else references it, and then never aborts.
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), config.waitMs ?? 20_000)
    try {
      await whenToolsRegistered(ctx, ['web_fetch'], { signal: controller.signal })
      await ctx.web.whenProvidersRegistered({ signal: controller.signal })
      const outcome = await ctx.tools.invoke('web_fetch', { url: config.url })
      console.log(`DSH-PROBE ${JSON.stringify({ isError: outcome.isError, error: outcome.error ?? null, content: outcome.content })}`)
    } catch (error) {
      console.log(`DSH-PROBE ${JSON.stringify({ waitFailed: { code: error.code, message: error.message } })}`)
    } finally {
      clearTimeout(timer)
    }
  })
}
