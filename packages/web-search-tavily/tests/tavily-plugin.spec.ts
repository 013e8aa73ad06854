import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { itLogsEveryAttempt, itRegistersWhileMounted, itResolvesTheKeyAtEveryCall, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject } from '../../../tests/support/plugin-contract.js'
import * as tavily from '../src/index.js'
import { FIXTURES } from './helpers.js'

const subject: SearchPluginSubject = {
  plugin: tavily,
  providerId: 'tavily',
  name: 'tavily',
  event: 'web/tavily-search-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => server.url,
  multiResult: 'tavily-multi-result',
  rateLimited: { status: 429, headers: { 'retry-after': '0' }, body: { detail: { error: 'Your request has been blocked due to excessive requests.' } } },
  bodyPrefix: '{"query":"q","results":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers.authorization, `Bearer ${key}`, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/search`)
    assert.deepEqual(Object.keys(data).filter((key) => key !== 'callId').sort(), ['attempt', 'body', 'endpoint', 'providerId', 'route'])
    assert.equal(data.providerId, 'tavily')
  },
  credentialHeader: /authorization|bearer/i,
  baseURLEnv: 'TAVILY_SEARCH_BASE_URL',
}

describe('tavily: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)

  itRegistersWhileMounted(harness)

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms, bounds on maxResults and the enums', () => {
    const config = tavily.Config({} as tavily.Config)
    assert.deepEqual({ ...config }, { apiKeyEnv: 'TAVILY_API_KEY', maxResults: 10, timeoutMs: 60_000, maxRetries: 2 })
    assert.equal(tavily.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(tavily.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(tavily.name, 'dsh-web-search-tavily')
    assert.throws(() => tavily.Config({ maxResults: 21 } as tavily.Config))
    assert.throws(() => tavily.Config({ maxResults: 0 } as tavily.Config))
    assert.throws(() => tavily.Config({ topic: 'sports' } as unknown as tavily.Config))
    assert.throws(() => tavily.Config({ includeAnswer: 'yes' } as unknown as tavily.Config))
    assert.equal(tavily.Config({ searchDepth: 'advanced' } as tavily.Config).searchDepth, 'advanced')
  })

  itResolvesTheKeyAtEveryCall(harness)
  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
