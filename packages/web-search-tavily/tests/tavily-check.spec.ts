import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itChecksTheKey } from '../../../tests/support/provider-check-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('tavily: the free check dsh doctor makes', () => {
  const server = useFixtureServer(FIXTURES)

  itChecksTheKey({
    server,
    providerFor,
    testKey: TEST_KEY,
    path: '/usage',
    ok: { status: 200, body: { key: { usage: 150, limit: 1000 }, account: { current_plan: 'Researcher', plan_usage: 150, plan_limit: 1000 } } },
    proves: /^the key works \(150 of its 1000 credits used\) \(GET \/usage\)$/,
    keyOf: (headers) => /^Bearer (.+)$/.exec(String(headers.authorization))?.[1],
    refusal: (status, key) => ({ status, body: { detail: { error: `Unauthorized: missing or invalid API key ${key}.` } } }),
  })

  it("check: a key whose own credit limit is used up is WEB_PROVIDER_QUOTA_EXHAUSTED, as the search would end", async () => {
    server.reply({ status: 200, body: { key: { usage: 1000, limit: 1000 }, account: { current_plan: 'Researcher', plan_usage: 1000, plan_limit: 1000 } } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.check!(call()))
    assert.equal(error.code, 'WEB_PROVIDER_QUOTA_EXHAUSTED')
    assert.match(error.message, /1000 of 1000/)
    await provider.close()
  })

  it('check: a key without a limit of its own says so', async () => {
    server.reply({ status: 200, body: { key: { usage: 3, limit: null } } })
    const { provider } = providerFor(server)
    assert.match(await provider.check!(call()), /^the key works \(no credit limit on the key\)/)
    await provider.close()
  })
})
