import type { ResolvedCredential } from 'dsh-web'
import { createOpenAISearch, type OpenAISearchDeps, type OpenAISearchProvider, type OpenAISearchSettings } from '../src/openai-search.js'
import type { FixtureServer } from './fixture-server.js'

export const TEST_KEY = 'sk-test-openai-4c8e1a7d9b2f3e50'

export function settingsFor(server: FixtureServer, overrides: Partial<OpenAISearchSettings> = {}): OpenAISearchSettings {
  return {
    apiKeyEnv: 'DSH_TEST_OPENAI_UNUSED',
    baseURL: server.url,
    model: 'gpt-4.1-mini',
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is a fixed key; waits are recorded and skipped. */
export function providerFor(
  server: FixtureServer,
  overrides: Partial<OpenAISearchSettings> = {},
  deps: Partial<OpenAISearchDeps> = {},
): { provider: OpenAISearchProvider; waits: number[] } {
  const waits: number[] = []
  const provider = createOpenAISearch(settingsFor(server, overrides), {
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

/** Resolves with the error the promise rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the promise to reject')
}
