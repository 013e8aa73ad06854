// HTTPS through the pinned dispatcher, on real TLS servers on 127.0.0.1 whose
// certificates name made-up hosts: the connection goes to the vetted address
// while the TLS server name and the Host header stay the original host, and
// certificate verification stays on. The certificates are throwaway test-only
// fixtures (fixtures/tls/, with the openssl commands that made them).
import assert from 'node:assert/strict'
import { X509Certificate, createPrivateKey } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { type TestServer, type TlsTestServer, fakeLookup, signal, startServer, startTlsServer, refusal, DIRECT } from './helpers.js'
import { CERTIFICATE_NAMES, loadTestCertificates } from './tls-certificates.js'

describe('test certificates', () => {
  it('are a CA and a leaf per name, signed by it, valid for at least another 50 years', () => {
    const certificates = loadTestCertificates()
    const ca = new X509Certificate(certificates.ca)
    assert.equal(ca.ca, true)
    const fiftyYears = Date.now() + 50 * 365 * 24 * 3600_000
    for (const name of CERTIFICATE_NAMES) {
      const leaf = new X509Certificate(certificates.leaves[name]!.cert)
      assert.equal(leaf.subjectAltName, `DNS:${name}`)
      assert.ok(leaf.verify(ca.publicKey) && leaf.checkIssued(ca), `${name} is signed by the CA`)
      assert.ok(leaf.checkPrivateKey(createPrivateKey(certificates.leaves[name]!.key)), `${name}.key belongs to ${name}.pem`)
      assert.ok(new Date(leaf.validTo).getTime() > fiftyYears && new Date(leaf.validFrom).getTime() <= Date.now(), `${name} is valid now and for long`)
    }
  })
})

describe('https with the original host name on a pinned address', () => {
  const certificates = loadTestCertificates()
  let secure: TlsTestServer
  let impostor: TlsTestServer
  let plain: TestServer
  const hosts: string[] = []
  // Every name the tests use is answered here; anything else is NXDOMAIN, never a real DNS query.
  const lookup = fakeLookup({})
  const resolve = { 'secure.test': '127.0.0.1', 'trusted.test': '127.0.0.1' }

  before(async () => {
    secure = await startTlsServer(certificates.leaves['secure.test']!, (request, response) => {
      hosts.push(String(request.headers.host))
      response.setHeader('content-type', 'text/plain; charset=utf-8')
      response.end(`secure page ${request.url}`)
    })
    // A certificate from the same trusted CA, but for another name.
    impostor = await startTlsServer(certificates.leaves['other.test']!, (_request, response) => {
      response.end('must never be read')
    })
    plain = await startServer((request, response) => {
      hosts.push(String(request.headers.host))
      if (request.url === '/to-secure') {
        response.writeHead(302, { location: `https://secure.test:${secure.port}/landing` })
        return response.end()
      }
      response.writeHead(404).end()
    })
  })
  after(async () => {
    await Promise.all([secure?.close(), impostor?.close(), plain?.close()])
  })

  it('sends SNI and Host of the original name to the pinned address', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup, resolve, privateHosts: ['secure.test'], ca: certificates.ca })
    try {
      hosts.length = 0
      const document = await fetcher.fetch({ url: `https://secure.test:${secure.port}/page`, format: 'text' }, { signal: signal() })
      assert.equal(document.status, 200)
      assert.equal(document.text, 'secure page /page')
      assert.equal(document.url, `https://secure.test:${secure.port}/page`)
      assert.equal(document.provenance.address, '127.0.0.1')
      assert.deepEqual(secure.serverNames, ['secure.test'])
      assert.deepEqual(hosts, [`secure.test:${secure.port}`])
      assert.deepEqual(lookup.calls, [], 'the fixed answer was used; nothing else was resolved')
    } finally {
      await fetcher.close()
    }
  })

  it('refuses a certificate for another name with WEB_FETCH_FAILED (verification stays on)', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup, resolve, privateHosts: ['secure.test'], ca: certificates.ca })
    try {
      const before = impostor.serverNames.length
      const error = await refusal(fetcher.fetch({ url: `https://secure.test:${impostor.port}/page` }, { signal: signal() }))
      assert.equal(error.code, 'WEB_FETCH_FAILED')
      assert.match(error.message, /ERR_TLS_CERT_ALTNAME_INVALID/)
      assert.deepEqual(impostor.serverNames.slice(before), ['secure.test'], 'the handshake named the original host')
      assert.deepEqual(impostor.hits, [], 'no request was sent over the unverified connection')
    } finally {
      await fetcher.close()
    }
  })

  it('refuses a certificate from a CA it was not given, even with NODE_TLS_REJECT_UNAUTHORIZED=0', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup, resolve, privateHosts: ['secure.test'] })
    const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED
    const hits = secure.hits.length
    try {
      const error = await refusal(fetcher.fetch({ url: `https://secure.test:${secure.port}/untrusted` }, { signal: signal() }))
      assert.equal(error.code, 'WEB_FETCH_FAILED')
      assert.match(error.message, /UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/i)
      process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
      const still = await refusal(fetcher.fetch({ url: `https://secure.test:${secure.port}/untrusted-again` }, { signal: signal() }))
      assert.equal(still.code, 'WEB_FETCH_FAILED')
      assert.equal(secure.hits.length, hits, 'no request reached the server')
    } finally {
      if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous
      await fetcher.close()
    }
  })

  it('follows a redirect from http on a trusted name to https, vetting the hop and listing the chain', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup, resolve, privateHosts: ['trusted.test', 'secure.test'], ca: certificates.ca })
    try {
      hosts.length = 0
      const names = secure.serverNames.length
      const document = await fetcher.fetch({ url: `http://trusted.test:${plain.port}/to-secure`, format: 'text' }, { signal: signal() })
      assert.equal(document.text, 'secure page /landing')
      assert.equal(document.url, `https://secure.test:${secure.port}/landing`)
      assert.deepEqual(document.provenance.redirects, [
        { url: `http://trusted.test:${plain.port}/to-secure`, status: 302, location: `https://secure.test:${secure.port}/landing`, route: 'direct', checks: ['trusted', 'pinned'] },
      ])
      assert.equal(document.provenance.requestedUrl, `http://trusted.test:${plain.port}/to-secure`)
      assert.equal(document.provenance.address, '127.0.0.1')
      assert.deepEqual(secure.serverNames.slice(names), ['secure.test'])
      assert.deepEqual(hosts, [`trusted.test:${plain.port}`, `secure.test:${secure.port}`])
    } finally {
      await fetcher.close()
    }
  })

  it('refuses the https hop of a redirect to a name the operator did not trust, before any handshake', async () => {
    const fetcher = createHttpFetcher({ env: DIRECT, lookup, resolve, privateHosts: ['trusted.test'], ca: certificates.ca })
    try {
      const names = secure.serverNames.length
      const error = await refusal(fetcher.fetch({ url: `http://trusted.test:${plain.port}/to-secure` }, { signal: signal() }))
      assert.equal(error.code, 'WEB_BLOCKED_ADDRESS')
      assert.match(error.message, /secure\.test/)
      assert.equal(secure.serverNames.length, names, 'no TLS connection was opened')
    } finally {
      await fetcher.close()
    }
  })

  it('refuses a ca option that is not PEM certificates', () => {
    assert.throws(
      () => createHttpFetcher({ env: DIRECT, ca: 'not a certificate' }),
      (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && /PEM/.test(error.message),
    )
  })
})
