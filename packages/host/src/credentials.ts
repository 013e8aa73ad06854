export type CredentialSourceName = 'environment' | 'store' | 'config' | (string & {})

export interface ResolvedCredential {
  value: string
  source: CredentialSourceName
}

/**
 * `ctx.credentials`: named secrets, read fresh at every call (a key stored or
 * rotated while running reaches the next call). Undefined when the name has no
 * value.
 */
export interface CredentialsService {
  resolve(ref: string): ResolvedCredential | undefined | Promise<ResolvedCredential | undefined>
}
