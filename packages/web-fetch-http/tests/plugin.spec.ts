import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import { session } from '../../../tests/support/host-services.js'
import * as web from 'dsh-web'
import * as fetchHttp from 'dsh-web-fetch-http'
import { type TestServer, signal, startServer } from './helpers.js'

describe('plugin dsh-web-fetch-http', () => {
  let home: string
  let server: TestServer
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-fetch-plugin-'))
    server = await startServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8')
      response.end(`<html><head><title>Plugin page</title></head><body><article>${'<p>A sentence of the article, long enough to count as content for readability.</p>'.repeat(20)}</article></body></html>`)
    })
  })
  after(async () => {
    await server.close()
    await rm(home, { recursive: true, force: true })
  })

  it('has a Config with real defaults', () => {
    const config = fetchHttp.Config({})
    assert.equal(config.maxBytes, 5 * 1024 * 1024)
    assert.equal(config.timeoutMs, 30_000)
    assert.equal(config.maxRedirects, 5)
    assert.deepEqual(config.privateHosts, [])
    assert.equal(config.artifactThreshold, 200_000)
  })

  it('registers the fetch provider "http" in ctx.web, fetches through it with a session, and disposal removes it', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'none', fetchProvider: 'http' })
    ctx.plugin(session, { home })
    const fork = ctx.plugin(fetchHttp, { privateHosts: ['127.0.0.1'], artifactThreshold: 500 })
    await ctx.start()
    await ctx.lifecycle.flush()
    assert.deepEqual(ctx.web.listProviders().fetch, ['http'])

    const s = await ctx.session.create()
    const document = await ctx.web.fetch({ url: `${server.origin}/article`, format: 'text', maxChars: 300 }, { signal: signal(), session: s, callId: 'call-1' })
    assert.equal(document.providerId, 'http')
    assert.equal(document.metadata.title, 'Plugin page')
    assert.equal(document.nextOffset, 300)
    assert.ok(document.artifact!.path.startsWith(join(home, 'sessions', s.id)))
    // The file holds the page fenced, as the model sees it in the result: the opening marker and its note, the text, the closing marker.
    const written = (await readFile(document.artifact!.path, 'utf8')).split('\n')
    assert.match(written[0], /^<untrusted-content id="[0-9a-f]{12}" source="http:\/\/127\.0\.0\.1:\d+\/article">$/)
    assert.equal(written.slice(2, -2).join('\n').length, document.totalChars)
    const events = await ctx.session.read(s.id)
    const logged = events.find((event) => event.type === 'web/http-document-fetch')
    assert.ok(logged, 'the fetch is in the session log')
    assert.equal(logged.visibility, 'log')
    assert.equal((logged.data as { provenance: { finalUrl: string } }).provenance.finalUrl, `${server.origin}/article`)

    await fork.dispose()
    assert.deepEqual(ctx.web.listProviders().fetch, [])
    await ctx.stop?.()
  })

  it('refuses loopback when privateHosts does not name it', async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'none', fetchProvider: 'http' })
    const fork = ctx.plugin(fetchHttp, {})
    await ctx.start()
    await ctx.lifecycle.flush()
    await assert.rejects(ctx.web.fetch({ url: `${server.origin}/article` }, { signal: signal() }), (error: unknown) => web.WebError.is(error) && error.code === 'WEB_BLOCKED_ADDRESS')
    await fork.dispose()
  })
})
