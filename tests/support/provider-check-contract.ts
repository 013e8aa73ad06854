// What every keyed provider's `check()` (dsh doctor's free request) must do, against its fake upstream on loopback.
import assert from 'node:assert/strict'
import type { IncomingHttpHeaders } from 'node:http'
import { it } from 'node:test'
import type { Fixture, FixtureServer } from './fixture-server.js'
import type { ProviderFor } from './provider-harness.js'
import { call, rejection } from './provider-harness.js'

interface CheckedProvider {
  check?(call: { signal: AbortSignal }): Promise<string>
  close(): Promise<void>
}

export interface CheckSubject {
  server: FixtureServer
  providerFor: ProviderFor<any, CheckedProvider>
  testKey: string
  /** The free endpoint's path as the fake upstream receives it. */
  path: string
  /** The vendor's answer to a good key. */
  ok: Fixture
  /** What check() resolves to with it. */
  proves: RegExp
  /** Where the vendor takes the key, read from the received headers. */
  keyOf(headers: IncomingHttpHeaders): string | undefined
  /** The vendor's refusal of a key, quoting the key back as some gateways do. */
  refusal(status: 401 | 403, key: string): Fixture
}

export function itChecksTheKey(subject: CheckSubject): void {
  const { server, providerFor, testKey } = subject

  it('check: one GET of the free endpoint with the key, no body, resolves to what it proved', async () => {
    server.reply(subject.ok)
    const { provider } = providerFor(server)
    assert.match(await provider.check!(call()), subject.proves)
    assert.equal(server.requests.length, 1)
    const [request] = server.requests
    assert.equal(request!.method, 'GET')
    assert.equal(request!.path, subject.path)
    assert.equal(subject.keyOf(request!.headers), testKey)
    assert.equal(request!.body, '')
    await provider.close()
  })

  for (const status of [401, 403] as const) {
    it(`check: a key refused with ${status} is WEB_PROVIDER_AUTH_FAILED naming where the key came from, never a byte of it, not retried`, async () => {
      server.reply(subject.refusal(status, testKey))
      const { provider, waits } = providerFor(server)
      const error = await rejection(provider.check!(call()))
      assert.equal(error.code, 'WEB_PROVIDER_AUTH_FAILED')
      assert.equal(error.details.status, status)
      assert.match(error.message, /the key used: DSH_TEST_\w+ from the credentials store/)
      const shown = JSON.stringify({ message: error.message, details: error.details })
      for (const part of [testKey, testKey.slice(-12)]) assert.ok(!shown.includes(part), `the key shows in ${shown}`)
      assert.equal(server.requests.length, 1)
      assert.deepEqual(waits, [])
      await provider.close()
    })
  }

  it('check: through the search transport: a redirect is never followed (the key would travel with it)', async () => {
    server.reply({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.check!(call()))
    assert.equal(error.code, 'WEB_REDIRECT_BLOCKED')
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('check: through the search transport: a 503 is retried (bounded), then the answer is read', async () => {
    server.reply({ status: 503, body: { error: { message: 'overloaded' } } }, subject.ok)
    const { provider, waits } = providerFor(server)
    assert.match(await provider.check!(call()), subject.proves)
    assert.equal(server.requests.length, 2)
    assert.equal(waits.length, 1)
    await provider.close()
  })

  it('check: a 2xx body that is not the expected answer is WEB_PROVIDER_BAD_RESPONSE', async () => {
    server.reply({ status: 200, rawBody: '<!doctype html><title>portal</title>', headers: { 'content-type': 'text/html' } })
    const { provider } = providerFor(server)
    const error = await rejection(provider.check!(call()))
    assert.equal(error.code, 'WEB_PROVIDER_BAD_RESPONSE')
    await provider.close()
  })
}
