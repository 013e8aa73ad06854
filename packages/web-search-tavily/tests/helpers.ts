import { createTavilySearch, type TavilySearchProvider, type TavilySearchSettings } from '../src/tavily-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

export const TEST_KEY = 'tvly-test-tavily-5c8e1f02d94b7a63'

export function settingsFor(server: FixtureServer, overrides: Partial<TavilySearchSettings> = {}): TavilySearchSettings {
  return {
    apiKeyEnv: 'DSH_TEST_TAVILY_UNUSED',
    baseURL: server.url,
    maxResults: 10,
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is a fixed key; waits are recorded and skipped. */
export const providerFor = providerForFactory<TavilySearchSettings, TavilySearchProvider>(createTavilySearch, settingsFor, TEST_KEY)
