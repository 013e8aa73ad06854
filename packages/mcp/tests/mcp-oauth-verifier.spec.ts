import assert from 'node:assert/strict'
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { OAuthVerifier } from '../src/auth/oauth-verifier.js'

/** Real key pairs of every type the verifier might meet, published without `alg` so only the key's own type can bind the algorithm. */
const KEYS = {
  rsa: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  rsaShort: generateKeyPairSync('rsa', { modulusLength: 1024 }),
  p256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  p384: generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  ed25519: generateKeyPairSync('ed25519'),
} as const
type KeyName = keyof typeof KEYS

const AUDIENCE = 'https://tools.example.test/mcp'

describe('OAuthVerifier: the JWS algorithm is one of an exact list and fits the key', () => {
  let server: Server
  let issuer = ''
  before(async () => {
    const keys = Object.entries(KEYS).map(([kid, pair]) => ({ ...pair.publicKey.export({ format: 'jwk' }), kid, use: 'sig' }))
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json')
      if (req.url === '/jwks') res.end(JSON.stringify({ keys }))
      else res.writeHead(404).end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const verifier = () => new OAuthVerifier({ issuer, audience: AUDIENCE, jwksUrl: `${issuer}/jwks` })
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

  /** A JWT whose header says `alg` and `kid`, signed with `signer` (the signature the key can verify, whatever the header claims). */
  function token(alg: unknown, kid: KeyName, signer: (data: Buffer, key: KeyObject) => Buffer) {
    const body = `${encode({ alg, kid, typ: 'at+jwt' })}.${encode({ iss: issuer, aud: AUDIENCE, sub: 'agent', exp: Math.floor(Date.now() / 1000) + 600 })}`
    return `${body}.${signer(Buffer.from(body), KEYS[kid].privateKey).toString('base64url')}`
  }
  const rs256 = (data: Buffer, key: KeyObject) => sign('sha256', data, key)
  const es = (hash: string) => (data: Buffer, key: KeyObject) => sign(hash, data, { key, dsaEncoding: 'ieee-p1363' })
  const eddsa = (data: Buffer, key: KeyObject) => sign(null, data, key)

  it('accepts each algorithm with the key type and curve it is defined for', async () => {
    const cases: [string, KeyName, (data: Buffer, key: KeyObject) => Buffer][] = [
      ['RS256', 'rsa', rs256],
      ['RS512', 'rsa', (data, key) => sign('sha512', data, key)],
      ['PS256', 'rsa', (data, key) => sign('sha256', data, { key, padding: 6, saltLength: 32 })],
      ['ES256', 'p256', es('sha256')],
      ['ES384', 'p384', es('sha384')],
      ['EdDSA', 'ed25519', eddsa],
    ]
    const check = verifier()
    for (const [alg, kid, signer] of cases) assert.deepEqual(await check.check(token(alg, kid, signer)), { ok: true, name: 'oauth:agent' }, alg)
  })

  it('refuses alg values that are inherited property names, not algorithms (constructor, toString, __proto__ and others)', async () => {
    const check = verifier()
    for (const alg of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'none', 'rs256']) {
      const result = await check.check(token(alg, 'rsa', rs256))
      assert.equal(result.ok, false, alg)
      assert.match((result as { reason: string }).reason, new RegExp(`^signature algorithm "${alg}" not accepted \\(accepted: RS256, RS384, RS512, PS256, ES256, ES384, EdDSA\\)$`), alg)
    }
    for (const alg of [null, 256, { alg: 'RS256' }, ['RS256']]) {
      const result = await check.check(token(alg, 'rsa', rs256))
      assert.equal(result.ok, false, JSON.stringify(alg))
      assert.match((result as { reason: string }).reason, /^signature algorithm of type \w+ not accepted/)
    }
  })

  it('refuses an algorithm that does not fit the key, even with a signature the key verifies', async () => {
    const cases: [string, KeyName, (data: Buffer, key: KeyObject) => Buffer, RegExp][] = [
      // Node verifies with the key's default digest when the algorithm gives none: an RS256 signature passes as "EdDSA".
      ['EdDSA', 'rsa', rs256, /EdDSA does not fit the key: the key is rsa, not the ed25519 or ed448 key EdDSA needs/],
      ['RS256', 'p256', (data, key) => sign('sha256', data, key), /the key is ec, not the rsa key RS256 needs/],
      ['ES384', 'p256', es('sha384'), /the key is on the curve prime256v1, not the secp384r1 ES384 needs/],
      ['ES256', 'p384', es('sha256'), /the key is on the curve secp384r1, not the prime256v1 ES256 needs/],
      ['ES256', 'ed25519', eddsa, /the key is ed25519, not the ec key ES256 needs/],
      ['RS256', 'rsaShort', rs256, /the RSA key has 1024 bits, fewer than 2048/],
    ]
    const check = verifier()
    for (const [alg, kid, signer, reason] of cases) {
      const result = await check.check(token(alg, kid, signer))
      assert.equal(result.ok, false, `${alg} with the ${kid} key`)
      assert.match((result as { reason: string }).reason, reason)
    }
  })
})
