import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { itLogsEveryAttempt, itRegistersWhileMounted, itResolvesTheKeyAtEveryCall, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject } from '../../../tests/support/plugin-contract.js'
import * as exa from '../src/index.js'
import { FIXTURES } from './helpers.js'

const subject: SearchPluginSubject = {
  plugin: exa,
  providerId: 'exa',
  name: 'exa',
  event: 'web/exa-search-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => server.url,
  multiResult: 'exa-multi-result',
  rateLimited: { status: 429, headers: { 'retry-after': '0' }, body: { requestId: 'r', error: 'Rate limit exceeded', tag: 'RATE_LIMIT_EXCEEDED' } },
  bodyPrefix: '{"requestId":"r","results":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers['x-api-key'], key, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/search`)
    assert.deepEqual(Object.keys(data).filter((key) => key !== 'callId').sort(), ['attempt', 'body', 'endpoint', 'providerId', 'route'])
    assert.equal(data.providerId, 'exa')
  },
  credentialHeader: /x-api-key/i,
  baseURLEnv: 'EXA_SEARCH_BASE_URL',
}

describe('exa: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)

  itRegistersWhileMounted(harness)

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms, bounds on maxResults, snippets and their size', () => {
    const config = exa.Config({} as exa.Config)
    assert.deepEqual({ ...config }, { apiKeyEnv: 'EXA_API_KEY', maxResults: 10, snippets: 'highlights', snippetMaxCharacters: 1000, timeoutMs: 60_000, maxRetries: 2 })
    assert.equal(exa.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(exa.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(exa.name, 'dsh-web-search-exa')
    assert.throws(() => exa.Config({ maxResults: 101 } as exa.Config))
    assert.throws(() => exa.Config({ snippets: 'summary' } as unknown as exa.Config))
    assert.throws(() => exa.Config({ snippetMaxCharacters: 50_000 } as exa.Config))
    assert.equal(exa.Config({ type: 'fast' } as exa.Config).type, 'fast')
  })

  itResolvesTheKeyAtEveryCall(harness)
  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
