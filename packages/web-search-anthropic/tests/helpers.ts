import { createAnthropicSearch, type AnthropicSearchProvider, type AnthropicSearchSettings } from '../src/anthropic-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

export const TEST_KEY = 'sk-ant-api03-test-9c2e5b1d4f607f3a'

export function settingsFor(server: FixtureServer, overrides: Partial<AnthropicSearchSettings> = {}): AnthropicSearchSettings {
  return {
    apiKeyEnv: 'DSH_TEST_ANTHROPIC_UNUSED',
    baseURL: server.url,
    model: 'claude-haiku-4-5',
    maxTokens: 1024,
    maxUses: 3,
    toolVersion: 'web_search_20250305',
    apiVersion: '2023-06-01',
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is a fixed key; waits are recorded and skipped. */
export const providerFor = providerForFactory<AnthropicSearchSettings, AnthropicSearchProvider>(createAnthropicSearch, settingsFor, TEST_KEY)
