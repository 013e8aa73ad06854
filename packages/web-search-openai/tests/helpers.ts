import { createOpenAISearch, type OpenAISearchProvider, type OpenAISearchSettings } from '../src/openai-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

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
export const providerFor = providerForFactory<OpenAISearchSettings, OpenAISearchProvider>(createOpenAISearch, settingsFor, TEST_KEY)
