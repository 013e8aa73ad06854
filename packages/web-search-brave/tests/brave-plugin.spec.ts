import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { itLogsEveryAttempt, itRegistersWhileMounted, itResolvesTheKeyAtEveryCall, itSaysWhyItIsUnavailable, itStopsOnCancellationAndDeadlines, usePluginHarness, type SearchPluginSubject, type SearchRow } from '../../../tests/support/plugin-contract.js'
import * as brave from '../src/index.js'
import { FIXTURES } from './helpers.js'

const subject: SearchPluginSubject = {
  plugin: brave,
  providerId: 'brave',
  name: 'brave',
  event: 'web/brave-search-request',
  fixturesDir: FIXTURES,
  baseURL: (server) => `${server.url}/res/v1`,
  multiResult: 'brave-multi-result',
  rateLimited: {
    status: 429,
    headers: { 'x-ratelimit-policy': '1;w=1, 2000;w=2592000', 'x-ratelimit-remaining': '0, 1987', 'x-ratelimit-reset': '0, 1419704' },
    body: { type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: 'Request rate limit exceeded for plan.', status: 429 } },
  },
  bodyPrefix: '{"type":"search","query":{"original":"q"},"web":{"type":"search","results":[',
  assertKeySent: (request, key, message) => assert.equal(request.headers['x-subscription-token'], key, message),
  assertEventFields(data, server) {
    assert.equal(data.endpoint, `${server.url}/res/v1/web/search`)
    assert.deepEqual(Object.keys(data).filter((key) => key !== 'callId').sort(), ['attempt', 'endpoint', 'providerId', 'queryString', 'route'])
    assert.equal(data.providerId, 'brave')
  },
  assertEventRecords(data, request) {
    assert.equal(request.body, '', 'a GET has no body')
    assert.equal(`${new URL(data.endpoint).pathname}?${data.queryString}`, request.path, 'the exact path and query string sent')
  },
  credentialHeader: /x-subscription-token/i,
  baseURLEnv: 'BRAVE_SEARCH_BASE_URL',
}

describe('brave: the plugin in real Cordis contexts', () => {
  const harness = usePluginHarness(subject)

  itRegistersWhileMounted(harness)

  it('Config: real defaults, apiKey marked secret, timeoutMs marked ms, bounds on maxResults and freshness', () => {
    const config = brave.Config({} as brave.Config)
    assert.deepEqual({ ...config }, { apiKeyEnv: 'BRAVE_API_KEY', maxResults: 20, timeoutMs: 60_000, maxRetries: 2 })
    assert.equal(brave.Config.dict!.apiKey!.meta.role, 'secret')
    assert.equal(brave.Config.dict!.timeoutMs!.meta.role, 'ms')
    assert.equal(brave.name, 'dsh-web-search-brave')
    assert.throws(() => brave.Config({ maxResults: 201 } as brave.Config))
    assert.throws(() => brave.Config({ maxResults: 0 } as brave.Config))
    assert.throws(() => brave.Config({ freshness: 'last week' } as brave.Config))
    assert.throws(() => brave.Config({ safesearch: 'medium' } as unknown as brave.Config))
    assert.equal(brave.Config({ freshness: '2022-04-01to2022-07-30' } as brave.Config).freshness, '2022-04-01to2022-07-30')
  })

  it('one request event per page and attempt, with its query string, and never the key', async () => {
    const ctx = await harness.compose({ config: { apiKey: 'BSA-literal-paging-9999', maxResults: 40 } as SearchRow })
    const session = await ctx.session.create()
    harness.server.reply('brave-page-1', subject.rateLimited, 'brave-page-2')
    const result = await ctx.web.search({ query: 'deep query' }, { signal: new AbortController().signal, session, callId: 'call-9' })
    assert.equal(result.sources.length, 39)
    const events = (await ctx.session.read(session.id)).filter((event) => event.type === subject.event)
    assert.deepEqual(
      events.map((event) => {
        const data = event.data as Record<string, any>
        return [new URLSearchParams(data.queryString).get('offset'), data.attempt, data.callId]
      }),
      [['0', 1, 'call-9'], ['1', 1, 'call-9'], ['1', 2, 'call-9']],
    )
    events.forEach((event, index) => subject.assertEventRecords!(event.data as Record<string, any>, harness.server.requests[index]!))
    assert.ok(!(await harness.logText(session.id)).includes('BSA-literal-paging-9999'))
  })

  itResolvesTheKeyAtEveryCall(harness)
  itSaysWhyItIsUnavailable(harness)
  itLogsEveryAttempt(harness)
  itStopsOnCancellationAndDeadlines(harness)
})
