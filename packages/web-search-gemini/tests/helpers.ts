import { createGeminiSearch, type GeminiSearchDeps, type GeminiSearchProvider, type GeminiSearchSettings } from '../src/gemini-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

export const TEST_KEY = 'AIzaSyTest-gemini-4f60b1d5e2c9a37f'

/** The clock recency windows are dated by in these tests. */
export const NOW = new Date('2026-12-02T12:00:00.000Z')

export function settingsFor(server: FixtureServer, overrides: Partial<GeminiSearchSettings> = {}): GeminiSearchSettings {
  return {
    apiKeyEnv: 'DSH_TEST_GEMINI_UNUSED',
    baseURL: server.url,
    model: 'gemini-2.5-flash',
    maxOutputTokens: 1024,
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is a fixed key and whose clock is NOW; waits are recorded and skipped. */
export const providerFor = providerForFactory<GeminiSearchSettings, GeminiSearchProvider>(
  (settings, deps: GeminiSearchDeps) => createGeminiSearch(settings, { now: () => NOW, ...deps }),
  settingsFor,
  TEST_KEY,
)
