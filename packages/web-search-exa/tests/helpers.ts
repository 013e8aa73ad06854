import { createExaSearch, type ExaSearchProvider, type ExaSearchSettings } from '../src/exa-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

export const TEST_KEY = 'exa-test-key-2b7f4e91c05a8d36'

export function settingsFor(server: FixtureServer, overrides: Partial<ExaSearchSettings> = {}): ExaSearchSettings {
  return {
    apiKeyEnv: 'DSH_TEST_EXA_UNUSED',
    baseURL: server.url,
    maxResults: 10,
    snippets: 'highlights',
    snippetMaxCharacters: 1000,
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is a fixed key; waits are recorded and skipped. */
export const providerFor = providerForFactory<ExaSearchSettings, ExaSearchProvider>(createExaSearch, settingsFor, TEST_KEY)
