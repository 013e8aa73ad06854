import { type Context, Schema } from 'cordis'
import { defaultHome } from '../home.js'
import { type CredentialsConfig, CredentialsService } from './credentials-service.js'

export const name = 'dsh-harness/credentials'

export type Config = CredentialsConfig

export const Config: Schema<Partial<Config>, Config> = Schema.object({
  home: Schema.string().default(defaultHome()).description('Folder of the credential store (credentials.json, mode 0600). Defaults to $DSH_HOME, else ~/.dsh.'),
})

export function apply(ctx: Context, config: Config) {
  ctx.plugin(CredentialsService, config)
}


export { CredentialsService }
export type { CredentialDescription, CredentialSource } from './credentials-service.js'
export { assertCredentialName, CredentialNameError } from './credential-store.js'
