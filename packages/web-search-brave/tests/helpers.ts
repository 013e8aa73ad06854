import { createBraveSearch, type BraveSearchProvider, type BraveSearchSettings } from '../src/brave-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

export const TEST_KEY = 'BSA-test-brave-9d2e7c41a6b8f03e'

/** The query string every page carries after q, count and offset when the row sets nothing else. */
export const FIXED_PARAMS = 'text_decorations=false&result_filter=web%2Cnews%2Cdiscussions%2Cquery'

export function settingsFor(server: FixtureServer, overrides: Partial<BraveSearchSettings> = {}): BraveSearchSettings {
  return {
    apiKeyEnv: 'DSH_TEST_BRAVE_UNUSED',
    baseURL: `${server.url}/res/v1`,
    maxResults: 20,
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is a fixed key; waits are recorded and skipped. */
export const providerFor = providerForFactory<BraveSearchSettings, BraveSearchProvider>(createBraveSearch, settingsFor, TEST_KEY)
