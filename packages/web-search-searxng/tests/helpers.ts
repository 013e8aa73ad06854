import { createSearxngSearch, type SearxngSearchProvider, type SearxngSearchSettings } from '../src/searxng-search.js'
import type { FixtureServer } from '../../../tests/support/fixture-server.js'
import { providerForFactory } from '../../../tests/support/provider-harness.js'

export { call, rejection } from '../../../tests/support/provider-harness.js'

export const FIXTURES = new URL('./fixtures/', import.meta.url)

/** The basic-auth credential the test provider resolves: user:password. */
export const TEST_USER = 'dsh-agent'
export const TEST_PASSWORD = 'pw-7f3a9c2e5b1d4f60'
export const TEST_KEY = `${TEST_USER}:${TEST_PASSWORD}`

export function basicAuth(value: string): string {
  return `Basic ${Buffer.from(value, 'utf8').toString('base64')}`
}

/**
 * An instance behind a basic-auth proxy at {server}/searxng. maxResults 4, so
 * that the four-result fixture is one page and one request.
 */
export function settingsFor(server: FixtureServer, overrides: Partial<SearxngSearchSettings> = {}): SearxngSearchSettings {
  return {
    baseURL: `${server.url}/searxng`,
    authEnv: 'DSH_TEST_SEARXNG_UNUSED',
    authScheme: 'basic',
    categories: [],
    engines: [],
    maxResults: 4,
    maxPages: 2,
    timeoutMs: 10_000,
    ...overrides,
  }
}

/** A provider whose credential is TEST_KEY from the store; waits are recorded and skipped. */
export const providerFor = providerForFactory<SearxngSearchSettings, SearxngSearchProvider>(createSearxngSearch, settingsFor, TEST_KEY)

/** The query string of a received request, decoded into ordered pairs. */
export function queryPairs(path: string): Array<[string, string]> {
  return [...new URL(path, 'http://x').searchParams.entries()]
}
