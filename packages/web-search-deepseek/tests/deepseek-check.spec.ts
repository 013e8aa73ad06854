import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itChecksTheKey } from '../../../tests/support/provider-check-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('deepseek: the free check dsh doctor makes', () => {
  const server = useFixtureServer(FIXTURES)

  itChecksTheKey({
    server,
    providerFor,
    testKey: TEST_KEY,
    path: '/user/balance',
    ok: { status: 200, body: { is_available: true, balance_infos: [{ currency: 'CNY', total_balance: '110.00', granted_balance: '10.00', topped_up_balance: '100.00' }] } },
    proves: /^the key works and its balance is available for API calls \(GET \/user\/balance\)$/,
    keyOf: (headers) => /^Bearer (.+)$/.exec(String(headers.authorization))?.[1],
    refusal: (status, key) => ({ status, body: { error: { message: `Authentication Fails, Your api key: ${key} is invalid`, type: 'authentication_error', param: null, code: 'invalid_request_error' } } }),
  })

  it('check: a balance that cannot pay (is_available: false) is WEB_PROVIDER_QUOTA_EXHAUSTED, as the search would end', async () => {
    server.reply({ status: 200, body: { is_available: false, balance_infos: [{ currency: 'USD', total_balance: '0.00', granted_balance: '0.00', topped_up_balance: '0.00' }] } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.check!(call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.match(error.message, /is_available: false/)
    await provider.close()
  })

  it('check: a base URL not ending in /anthropic derives no balance endpoint: nothing is sent, and it says so (noFreeCheck)', async () => {
    const { provider } = providerFor(server, { baseURL: `${server.url}/gateway` })
    const error = await rejection(provider.check!(call()))
    assert.equal(error.code, 'WEB_PROVIDER_UNAVAILABLE')
    assert.equal(error.details.noFreeCheck, true)
    assert.match(error.message, /dsh doctor --live/)
    assert.equal(server.requests.length, 0)
    await provider.close()
  })
})
