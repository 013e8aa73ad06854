import { describe } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { itChecksTheKey } from '../../../tests/support/provider-check-contract.js'
import { FIXTURES, providerFor, TEST_KEY } from './helpers.js'

describe('gemini: the free check dsh doctor makes', () => {
  const server = useFixtureServer(FIXTURES)

  itChecksTheKey({
    server,
    providerFor,
    testKey: TEST_KEY,
    path: '/v1beta/models/gemini-2.5-flash',
    ok: { status: 200, body: { name: 'models/gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', supportedGenerationMethods: ['generateContent'] } },
    proves: /^the key works and the model gemini-2\.5-flash exists \(GET \/v1beta\/models\/gemini-2\.5-flash\)$/,
    keyOf: (headers) => String(headers['x-goog-api-key']),
    refusal: (status, key) => ({ status, body: { error: { code: status, message: `API key not valid: ${key}. Please pass a valid API key.`, status: status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED' } } }),
  })
})
