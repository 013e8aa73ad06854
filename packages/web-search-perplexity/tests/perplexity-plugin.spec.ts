import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { itLogsEveryAttempt, itRegistersWhileMounted, itResolvesTheKeyAtEveryCall, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject } from '../../../tests/support/plugin-contract.js'
import * as perplexity from '../src/index.js'
import { FIXTURES } from './helpers.js'

const subject: SearchPluginSubject = {
  plugin: perplexity,
  providerId: 'perplexity',
  name: 'perplexity',
  event: 'web/perplexity-search-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => server.url,
  multiResult: 'perplexity-multi-result',
  rateLimited: { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit exceeded', type: 'rate_limit_error', code: 429 } } },
  bodyPrefix: '{"id":"q","results":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers.authorization, `Bearer ${key}`, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/search`)
    assert.deepEqual(Object.keys(data).filter((key) => key !== 'callId').sort(), ['attempt', 'body', 'endpoint', 'providerId', 'route'])
    assert.equal(data.providerId, 'perplexity')
  },
  credentialHeader: /authorization|bearer/i,
  baseURLEnv: 'PERPLEXITY_SEARCH_BASE_URL',
}

describe('perplexity: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)

  itRegistersWhileMounted(harness)

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms, bounds on maxResults, searchMode and maxTokensPerPage', () => {
    const config = perplexity.Config({} as perplexity.Config)
    assert.deepEqual({ ...config }, { apiKeyEnv: 'PERPLEXITY_API_KEY', maxResults: 10, timeoutMs: 60_000, maxRetries: 2 })
    assert.equal(perplexity.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(perplexity.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(perplexity.name, 'dsh-web-search-perplexity')
    assert.throws(() => perplexity.Config({ maxResults: 21 } as perplexity.Config))
    assert.throws(() => perplexity.Config({ searchMode: 'news' } as unknown as perplexity.Config))
    assert.throws(() => perplexity.Config({ maxTokensPerPage: 100_000 } as perplexity.Config))
    assert.equal(perplexity.Config({ searchMode: 'academic' } as perplexity.Config).searchMode, 'academic')
  })

  itResolvesTheKeyAtEveryCall(harness)
  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
