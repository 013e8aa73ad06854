import type { ProviderCall } from 'dsh-web'
import type { ResolvedCredential } from 'dsh-host'
import type { ModelSearchDeps } from 'dsh-provider-kit'
import type { FixtureServer } from './fixture-server.js'

/** A provider built for one test, and the retry waits it asked for (recorded, never slept). */
export interface ProviderUnderTest<Provider> {
  provider: Provider
  waits: number[]
}

export type ProviderFor<Settings, Provider> = (
  server: FixtureServer,
  overrides?: Partial<Settings>,
  deps?: Partial<ModelSearchDeps>,
) => ProviderUnderTest<Provider>

/**
 * `providerFor(server, overrides, deps)` for a provider factory: the settings
 * point at the fixture server, the credential is `key` from the store, the
 * environment is empty, and waits are recorded instead of slept.
 */
export function providerForFactory<Settings, Provider>(
  create: (settings: Settings, deps: ModelSearchDeps) => Provider,
  settingsFor: (server: FixtureServer, overrides: Partial<Settings>) => Settings,
  key: string,
): ProviderFor<Settings, Provider> {
  return (server, overrides = {}, deps = {}) => {
    const waits: number[] = []
    const provider = create(settingsFor(server, overrides), {
      resolveCredential: async (): Promise<ResolvedCredential> => ({ value: key, source: 'store' }),
      env: {},
      sleep: async (ms: number) => {
        waits.push(ms)
      },
      ...deps,
    })
    return { provider, waits }
  }
}

export function call(signal: AbortSignal = new AbortController().signal): ProviderCall {
  return { signal }
}

/** Resolves with the error the promise rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the promise to reject')
}
