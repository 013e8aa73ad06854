import type { Context } from 'cordis'
import type { CredentialsService, ResolvedCredential } from 'dsh-host'
import { abortError, WebError } from './errors.js'

export interface CredentialRequest {
  providerId: string
  /** Name of the credential, e.g. DEEPSEEK_API_KEY. */
  ref?: string
  /** The row's literal `apiKey`, the last resort. */
  literal?: string
  /** Config key of the literal, for the message. */
  literalKey?: string
  signal?: AbortSignal
}

/**
 * Resolves a provider's credential for one call. Call it inside every request,
 * never at load: a key stored or rotated while running reaches the next call.
 *
 * Order: the `ctx.credentials` service when mounted; the launching process
 * environment only when no credentials service is mounted; a non-empty literal
 * last. The lookup races the call's signal.
 */
export async function resolveCredential(ctx: Context, request: CredentialRequest): Promise<ResolvedCredential> {
  const { ref, literal, signal, providerId } = request
  if (signal?.aborted) throw abortError(signal, 'The credential lookup')
  if (ref) {
    const service = ctx.get('credentials') as CredentialsService | undefined
    if (service) {
      let found: ResolvedCredential | undefined
      try {
        found = await raceSignal(Promise.resolve().then(() => service.resolve(ref)), signal)
      } catch (error) {
        if (WebError.is(error)) throw error
        throw new WebError(
          'WEB_PROVIDER_CREDENTIAL_MISSING',
          `${providerId} could not read its credential ${ref}: ${(error as Error)?.message ?? error}`,
          { details: { providerId, credential: ref }, cause: error, retryable: false },
        )
      }
      if (found?.value) return found
    } else {
      const value = process.env[ref]
      if (value) return { value, source: 'environment' }
    }
  }
  if (literal) return { value: literal, source: 'config' }
  const name = ref ?? 'API_KEY'
  const key = request.literalKey ?? 'apiKey'
  throw new WebError(
    'WEB_PROVIDER_CREDENTIAL_MISSING',
    `${providerId} has no credential ${name}. Supply it in one of three ways: ` +
      `run \`dsh credentials set ${name}\` (the value is read from stdin), ` +
      `set the environment variable ${name} before starting, ` +
      `or set \`${key}\` in the provider's config row.`,
    { details: { providerId, credential: name } },
  )
}

function raceSignal<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal, 'The credential lookup'))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => { signal.removeEventListener('abort', onAbort); resolve(value) },
      (error) => { signal.removeEventListener('abort', onAbort); reject(error) },
    )
  })
}

/**
 * Names where a resolved credential came from, for auth failures; never its
 * value. `ref` is the credential's name as the row gives it (`apiKeyEnv`);
 * `literalKey` the config key of the literal (`apiKey` unless the provider names another).
 */
export function describeCredentialSource(credential: ResolvedCredential, ref: string | undefined, literalKey = 'apiKey'): string {
  switch (credential.source) {
    case 'store':
      return `${ref} from the credentials store`
    case 'environment':
      return `${ref} from the environment`
    case 'config':
      return `the literal ${literalKey} of the config row`
    default:
      return `${ref ?? literalKey} (${credential.source})`
  }
}
