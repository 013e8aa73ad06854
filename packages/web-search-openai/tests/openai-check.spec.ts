import { describe } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itChecksTheKey } from '../../../tests/support/provider-check-contract.js'
import { FIXTURES, providerFor, TEST_KEY } from './helpers.js'

describe('openai: the free check dsh doctor makes', () => {
  const server = useFixtureServer(FIXTURES)

  itChecksTheKey({
    server,
    providerFor,
    testKey: TEST_KEY,
    path: '/v1/models/gpt-4.1-mini',
    ok: { status: 200, body: { id: 'gpt-4.1-mini', object: 'model', created: 1744316542, owned_by: 'system' } },
    proves: /^the key works and the model gpt-4\.1-mini exists \(GET \/v1\/models\/gpt-4\.1-mini\)$/,
    keyOf: (headers) => /^Bearer (.+)$/.exec(String(headers.authorization))?.[1],
    refusal: (status, key) => ({ status, body: { error: { message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } }),
  })
})
