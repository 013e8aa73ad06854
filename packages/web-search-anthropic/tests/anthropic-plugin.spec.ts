import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { itLogsEveryAttempt, itRegistersWhileMounted, itResolvesTheKeyAtEveryCall, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject } from '../../../tests/support/plugin-contract.js'
import * as anthropic from '../src/index.js'
import { FIXTURES } from './helpers.js'

const subject: SearchPluginSubject = {
  plugin: anthropic,
  providerId: 'anthropic-official',
  name: 'anthropic',
  event: 'web/anthropic-search-llm-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => server.url,
  multiResult: 'anthropic-multi-result',
  rateLimited: { status: 429, headers: { 'retry-after': '0' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } },
  bodyPrefix: '{"id":"msg_1","type":"message","role":"assistant","content":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers['x-api-key'], key, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/v1/messages`)
    assert.equal(data.apiVersion, '2023-06-01')
    assert.deepEqual(Object.keys(data).sort(), ['apiVersion', 'attempt', 'body', 'endpoint', 'providerId', 'route'])
  },
  credentialHeader: /x-api-key/i,
  baseURLEnv: 'ANTHROPIC_SEARCH_BASE_URL',
}

describe('anthropic: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)

  itRegistersWhileMounted(harness)

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms, the tool version closed', () => {
    const config = anthropic.Config({} as anthropic.Config)
    assert.deepEqual(
      { ...config },
      { apiKeyEnv: 'ANTHROPIC_API_KEY', model: 'claude-haiku-4-5', maxTokens: 4096, maxUses: 3, toolVersion: 'web_search_20250305', apiVersion: '2023-06-01', timeoutMs: 60_000, maxRetries: 2 },
    )
    assert.equal(anthropic.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(anthropic.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.throws(() => anthropic.Config({ toolVersion: 'web_search_2099' } as never))
    assert.equal(anthropic.name, 'dsh-web-search-anthropic')
  })

  it('refuses a config key its schema does not declare, whichever host mounts it, before touching the context', () => {
    const config = anthropic.Config({} as anthropic.Config)
    assert.throws(() => anthropic.apply(undefined as never, { ...config, apiKeyEnvv: 'X' } as never), (error: any) => error.code === 'CONFIG_UNKNOWN_KEY' && /key "apiKeyEnvv" is not a config key/.test(error.message))
  })

  itResolvesTheKeyAtEveryCall(harness)
  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
