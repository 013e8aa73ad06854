import type { ResolvedCredential } from 'dsh-web'
import { createDeepSeekSearch, type DeepSeekSearchDeps, type DeepSeekSearchProvider, type DeepSeekSearchSettings } from '../src/deepseek-search.js'
import type { FixtureServer } from './fixture-server.js'

export const TEST_KEY = 'sk-test-deepseek-7f3a9c2e5b1d4f60'

export function settingsFor(server: FixtureServer, overrides: Partial<DeepSeekSearchSettings> = {}): DeepSeekSearchSettings {
  return {
    apiKeyEnv: 'DSH_TEST_DEEPSEEK_UNUSED',
    baseURL: `${server.url}/anthropic`,
    model: 'deepseek-v4-flash',
    maxTokens: 1024,
    maxUses: 3,
    apiVersion: '2023-06-01',
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is a fixed key; waits are recorded and skipped. */
export function providerFor(
  server: FixtureServer,
  overrides: Partial<DeepSeekSearchSettings> = {},
  deps: Partial<DeepSeekSearchDeps> = {},
): { provider: DeepSeekSearchProvider; waits: number[] } {
  const waits: number[] = []
  const provider = createDeepSeekSearch(settingsFor(server, overrides), {
    resolveCredential: async (): Promise<ResolvedCredential> => ({ value: TEST_KEY, source: 'store' }),
    env: {},
    sleep: async (ms) => {
      waits.push(ms)
    },
    ...deps,
  })
  return { provider, waits }
}

export function call(signal: AbortSignal = new AbortController().signal) {
  return { signal }
}

/** Resolves with the WebError the promise rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the promise to reject')
}
