import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { itLogsEveryAttempt, itRegistersWhileMounted, itResolvesTheKeyAtEveryCall, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject } from '../../../tests/support/plugin-contract.js'
import * as deepseek from '../src/index.js'
import { FIXTURES } from './helpers.js'

const subject: SearchPluginSubject = {
  plugin: deepseek,
  providerId: 'deepseek-official',
  name: 'deepseek',
  event: 'web/deepseek-search-llm-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => `${server.url}/anthropic`,
  multiResult: 'deepseek-multi-result',
  rateLimited: { status: 429, headers: { 'retry-after': '0' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } },
  bodyPrefix: '{"id":"msg_1","type":"message","role":"assistant","content":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers['x-api-key'], key, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/anthropic/v1/messages`)
    assert.equal(data.apiVersion, '2023-06-01')
    assert.deepEqual(Object.keys(data).sort(), ['apiVersion', 'attempt', 'body', 'endpoint', 'providerId', 'route'])
    assert.equal(data.route, 'direct')
  },
  credentialHeader: /x-api-key/i,
  baseURLEnv: 'DEEPSEEK_SEARCH_BASE_URL',
}

describe('deepseek: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)

  itRegistersWhileMounted(harness)

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms', () => {
    const config = deepseek.Config({} as deepseek.Config)
    assert.deepEqual(
      { ...config },
      { apiKeyEnv: 'DEEPSEEK_API_KEY', model: 'deepseek-v4-flash', maxTokens: 4096, maxUses: 3, apiVersion: '2023-06-01', timeoutMs: 60_000, maxRetries: 2 },
    )
    assert.equal(deepseek.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(deepseek.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(deepseek.name, 'dsh-web-search-deepseek')
  })

  it('refuses a config key its schema does not declare, whichever host mounts it, before touching the context', () => {
    const config = deepseek.Config({} as deepseek.Config)
    assert.throws(() => deepseek.apply(undefined as never, { ...config, apiKeyEnvv: 'X' } as never), (error: any) => error.code === 'CONFIG_UNKNOWN_KEY' && /key "apiKeyEnvv" is not a config key/.test(error.message))
  })

  itResolvesTheKeyAtEveryCall(harness)
  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
