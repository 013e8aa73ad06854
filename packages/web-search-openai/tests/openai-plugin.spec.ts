import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { itLogsEveryAttempt, itRegistersWhileMounted, itResolvesTheKeyAtEveryCall, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject } from '../../../tests/support/plugin-contract.js'
import * as openai from '../src/index.js'
import { FIXTURES } from './helpers.js'

const subject: SearchPluginSubject = {
  plugin: openai,
  providerId: 'openai-official',
  name: 'openai',
  event: 'web/openai-search-llm-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => server.url,
  multiResult: 'openai-multi-result',
  rateLimited: { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } } },
  bodyPrefix: '{"id":"resp_1","object":"response","status":"completed","output":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers.authorization, `Bearer ${key}`, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/v1/responses`)
    assert.deepEqual(Object.keys(data).sort(), ['attempt', 'body', 'endpoint', 'providerId', 'route'])
    assert.equal(data.route, 'direct')
  },
  credentialHeader: /authorization|bearer/i,
  baseURLEnv: 'OPENAI_SEARCH_BASE_URL',
}

describe('openai: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)

  itRegistersWhileMounted(harness)

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms', () => {
    const config = openai.Config({} as openai.Config)
    assert.deepEqual(
      { ...config },
      { apiKeyEnv: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', timeoutMs: 60_000, maxRetries: 2 },
    )
    assert.equal(openai.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(openai.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(openai.name, 'dsh-web-search-openai')
  })

  itResolvesTheKeyAtEveryCall(harness)
  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
