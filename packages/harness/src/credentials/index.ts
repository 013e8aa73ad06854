import { type Context, Schema } from 'cordis'
import { DEFAULT_LOCK_TIMEOUT_MS } from '../file-lock.js'
import { defaultHome } from '../home.js'
import { type CredentialsConfig, CredentialsService } from './credentials-service.js'

export const name = 'dsh-harness/credentials'

export type Config = CredentialsConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  home: Schema.string().default(defaultHome()).description('Folder of the credential store (credentials.json, mode 0600). Defaults to $DSH_HOME, else ~/.dsh.'),
  lockTimeoutMs: Schema.natural().role('ms').default(DEFAULT_LOCK_TIMEOUT_MS)
    .description('How long a change to the store waits for another process changing it before it fails with FILE_LOCK_TIMEOUT.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(CredentialsService, config)
}


export { CredentialsService }
export type { CredentialDescription, CredentialSource } from './credentials-service.js'
export { assertCredentialName, CredentialNameError } from './credential-store.js'
export { credentialReferences, type CredentialReference } from './credential-references.js'
