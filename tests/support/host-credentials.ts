import type { Context } from 'cordis'
import type { CredentialsService } from 'dsh-harness/credentials'

/**
 * The host's own credentials service behind `ctx.credentials`, with the
 * management calls (`set`, `unset`, `describe`, `list`) the plugin contract
 * leaves out: tests store and rotate keys through it.
 */
export function hostCredentials(ctx: Context): CredentialsService {
  return ctx.get('credentials') as unknown as CredentialsService
}
