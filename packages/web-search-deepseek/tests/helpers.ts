import { createDeepSeekSearch, type DeepSeekSearchProvider, type DeepSeekSearchSettings } from '../src/deepseek-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

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
export const providerFor = providerForFactory<DeepSeekSearchSettings, DeepSeekSearchProvider>(createDeepSeekSearch, settingsFor, TEST_KEY)
