import { createPerplexitySearch, type PerplexitySearchProvider, type PerplexitySearchSettings } from '../src/perplexity-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

export const TEST_KEY = 'pplx-test-perplexity-9e4c2a7b61d3f08a'

export function settingsFor(server: FixtureServer, overrides: Partial<PerplexitySearchSettings> = {}): PerplexitySearchSettings {
  return {
    apiKeyEnv: 'DSH_TEST_PERPLEXITY_UNUSED',
    baseURL: server.url,
    maxResults: 10,
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is a fixed key; waits are recorded and skipped. */
export const providerFor = providerForFactory<PerplexitySearchSettings, PerplexitySearchProvider>(createPerplexitySearch, settingsFor, TEST_KEY)
