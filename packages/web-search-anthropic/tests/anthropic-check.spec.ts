import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itChecksTheKey } from '../../../tests/support/provider-check-contract.js'
import { call, FIXTURES, providerFor, rejection, TEST_KEY } from './helpers.js'

describe('anthropic: the free check dsh doctor makes', () => {
  const server = useFixtureServer(FIXTURES)

  itChecksTheKey({
    server,
    providerFor,
    testKey: TEST_KEY,
    path: '/v1/models/claude-haiku-4-5',
    ok: { status: 200, body: { id: 'claude-haiku-4-5-20251001', type: 'model', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' } },
    proves: /^the key works and the model claude-haiku-4-5 exists \(GET \/v1\/models\/claude-haiku-4-5\)$/,
    keyOf: (headers) => (headers['anthropic-version'] === '2023-06-01' ? String(headers['x-api-key']) : undefined),
    refusal: (status, key) => ({ status, body: { type: 'error', error: { type: status === 401 ? 'authentication_error' : 'permission_error', message: `invalid x-api-key ${key}` } } }),
  })

  it('check: a base URL ending in /v1 keeps the models path beside messages', async () => {
    server.reply({ status: 200, body: { id: 'claude-haiku-4-5', type: 'model' } })
    const { provider } = providerFor(server, { baseURL: `${server.url}/v1` })
    await provider.check!(call())
    assert.equal(server.requests[0]!.path, '/v1/models/claude-haiku-4-5')
    await provider.close()
  })

  it('check: an unknown model is the 404 a search would end with', async () => {
    server.reply({ status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-nope' } } })
    const { provider } = providerFor(server, { model: 'claude-nope' })
    const error = await rejection(provider.check!(call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.equal(error.details.status, 404)
    assert.match(error.message, /model: claude-nope/)
    await provider.close()
  })
})
