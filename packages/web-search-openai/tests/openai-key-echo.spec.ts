import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

/** TEST_KEY's forms a provider may echo; none may come out of the provider. */
const FORMS = [TEST_KEY, TEST_KEY.toUpperCase(), Buffer.from(TEST_KEY).toString('base64'), TEST_KEY.slice(-12)]

describe('openai: a key the provider echoes never comes out of the provider', () => {
  const server = useFixtureServer(FIXTURES)

  it('scrubs the key from a successful answer: text, queries, source URLs and titles (whole, in another case, base64, cut)', async () => {
    server.reply({
      status: 200,
      body: {
        id: 'resp_echo',
        object: 'response',
        status: 'completed',
        output: [
          { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', queries: [`echo ${TEST_KEY}`], sources: [{ type: 'url', url: `https://example.com/?k=${TEST_KEY.toUpperCase()}` }] } },
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{
              type: 'output_text',
              text: `Your key ${TEST_KEY} is ${Buffer.from(TEST_KEY).toString('base64')} and ends ${TEST_KEY.slice(-12)}.`,
              annotations: [{ type: 'url_citation', url: 'https://example.com/cited', title: `About ${TEST_KEY}`, start_index: 0, end_index: 4 }],
            }],
          },
        ],
      },
    })
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.equal(result.answer?.text, 'Your key [redacted] is [redacted] and ends [redacted].')
    assert.deepEqual(result.queries, ['echo [redacted]'])
    const serialised = JSON.stringify(result)
    for (const form of FORMS) assert.ok(!serialised.includes(form), `${form} in ${serialised}`)
    await provider.close()
  })

  it('scrubs the key from an error\'s message and details (request id, code), cut or encoded', async () => {
    server.reply({
      status: 400,
      headers: { 'x-request-id': `req_${TEST_KEY.slice(0, 16)}` },
      body: { error: { message: `Key ${encodeURIComponent(TEST_KEY)} / ${Buffer.from(`u:${TEST_KEY}`).toString('base64')} is bad`, type: 'invalid_request_error', code: TEST_KEY.slice(-10) } },
    })
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.match(error.message, /Key \[redacted\] \/ .*\[redacted\].* is bad/)
    const serialised = JSON.stringify({ message: error.message, details: error.details })
    for (const form of FORMS) assert.ok(!serialised.includes(form), `${form} in ${serialised}`)
    assert.ok(!serialised.includes(TEST_KEY.slice(0, 16)) && !serialised.includes(TEST_KEY.slice(-10)), serialised)
    await provider.close()
  })
})
