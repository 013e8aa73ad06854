import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { itLogsEveryAttempt, itRegistersWhileMounted, itResolvesTheKeyAtEveryCall, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject } from '../../../tests/support/plugin-contract.js'
import * as gemini from '../src/index.js'
import { FIXTURES } from './helpers.js'

const subject: SearchPluginSubject = {
  plugin: gemini,
  providerId: 'gemini-official',
  name: 'gemini',
  event: 'web/gemini-search-llm-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => server.url,
  multiResult: 'gemini-multi-result',
  rateLimited: { status: 429, headers: { 'retry-after': '0' }, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'slow down' } } },
  bodyPrefix: '{"candidates":[{"content":{"role":"model","parts":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers['x-goog-api-key'], key, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/v1beta/models/gemini-2.5-flash:generateContent`)
    assert.deepEqual(Object.keys(data).sort(), ['attempt', 'body', 'endpoint', 'providerId', 'route'])
  },
  credentialHeader: /x-goog-api-key/i,
  baseURLEnv: 'GEMINI_SEARCH_BASE_URL',
}

describe('gemini: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)

  itRegistersWhileMounted(harness)

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms', () => {
    const config = gemini.Config({} as gemini.Config)
    assert.deepEqual({ ...config }, { apiKeyEnv: 'GEMINI_API_KEY', model: 'gemini-2.5-flash', maxOutputTokens: 4096, timeoutMs: 60_000, maxRetries: 2 })
    assert.equal(gemini.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(gemini.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(gemini.name, 'dsh-web-search-gemini')
  })

  it('refuses a config key its schema does not declare, whichever host mounts it, before touching the context', () => {
    const config = gemini.Config({} as gemini.Config)
    assert.throws(() => gemini.apply(undefined as never, { ...config, apiKeyEnvv: 'X' } as never), (error: any) => error.code === 'CONFIG_UNKNOWN_KEY' && /key "apiKeyEnvv" is not a config key/.test(error.message))
  })

  itResolvesTheKeyAtEveryCall(harness)
  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
