// requestJson's onRetry: told before each retry wait, on a real loopback server.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Agent } from 'undici'
import { WebError } from 'dsh-web'
import { requestJson, type RetryNotice } from '../src/transport.js'

describe('requestJson onRetry', () => {
  let server: Server
  let endpoint: URL
  const answers: Array<[number, Record<string, string>]> = []
  const dispatcher = new Agent()
  before(async () => {
    server = createServer((request, response) => {
      request.resume()
      const [status, headers] = answers.shift() ?? [200, {}]
      response.writeHead(status, { 'content-type': 'application/json', ...headers })
      response.end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    endpoint = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/search`)
  })
  after(async () => {
    await dispatcher.close()
    server.close()
  })

  function call(onRetry: (notice: RetryNotice) => void, slept: number[]) {
    return requestJson({
      providerId: 'test-search',
      providerName: 'Test',
      endpoint,
      headers: {},
      body: '{}',
      secret: 'sk-test',
      signal: new AbortController().signal,
      deadline: Date.now() + 60_000,
      dispatcher,
      beforeDispatch: async () => {},
      toError: (answer) => new WebError(answer.status === 429 ? 'WEB_PROVIDER_RATE_LIMITED' : 'WEB_PROVIDER_ERROR', `HTTP ${answer.status}`, { retryable: true, details: { status: answer.status } }),
      sleep: async (ms) => void slept.push(ms),
      onRetry,
    })
  }

  it('says a 429 with retry-after: 7 waits 7 s because of the 429, and a 503 waits the backoff', async () => {
    answers.push([429, { 'retry-after': '7' }], [503, {}])
    const notices: RetryNotice[] = []
    const slept: number[] = []
    const answer = await call((notice) => notices.push(notice), slept)
    assert.equal(answer.status, 200)
    assert.deepEqual(slept, [7000, 1000])
    assert.deepEqual(notices.map(({ retry, maxRetries, waitMs, waitFrom, status, code, reason }) => ({ retry, maxRetries, waitMs, waitFrom, status, code, reason })), [
      { retry: 1, maxRetries: 2, waitMs: 7000, waitFrom: 'retry-after', status: 429, code: 'WEB_PROVIDER_RATE_LIMITED', reason: 'Test answered HTTP 429 (rate limited)' },
      { retry: 2, maxRetries: 2, waitMs: 1000, waitFrom: 'backoff', status: 503, code: 'WEB_PROVIDER_ERROR', reason: 'Test answered HTTP 503 (server error)' },
    ])
  })

  it('a listener that throws changes nothing: the call retries and succeeds', async () => {
    answers.push([429, { 'retry-after': '1' }])
    const slept: number[] = []
    const answer = await call(() => {
      throw new Error('listener bug')
    }, slept)
    assert.equal(answer.status, 200)
    assert.deepEqual(slept, [1000])
  })
})
