import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import { session } from '../../../tests/support/host-services.js'
import * as web from 'dsh-web'
import * as fetchBrowser from 'dsh-web-fetch-browser'
import { chromiumMissing, listen, type Listener } from './helpers.js'

describe('plugin dsh-web-fetch-browser', () => {
  let home: string
  let site: Listener
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'dsh-browser-plugin-'))
    site = await listen('127.0.0.1', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><head><title>Plugin page</title></head><body><div id="root"></div><script>
        document.getElementById('root').innerHTML = '<article>' + '<p>A sentence the script wrote, long enough to count as content for readability.</p>'.repeat(20) + '</article>'
      </script></body></html>`)
    })
  })
  after(async () => {
    await site.close()
    await rm(home, { recursive: true, force: true })
  })

  it('has a Config with real defaults', () => {
    const config = fetchBrowser.Config({})
    assert.equal(config.executablePath, '/usr/bin/chromium')
    assert.equal(config.timeoutMs, 30_000)
    assert.equal(config.maxRequests, 300)
    assert.equal(config.maxContexts, 2)
    assert.equal(config.memoryMb, 2048)
    assert.deepEqual(config.privateHosts, [])
  })

  it('refuses a key its schema does not declare, naming it', async () => {
    assert.throws(() => fetchBrowser.apply(new Context(), { ...fetchBrowser.Config({}), memoryMB: 100 } as never), /memoryMB/)
  })

  it('registers the fetch provider "browser", renders through it with a session, and disposal removes it', { skip: chromiumMissing }, async () => {
    const ctx = new Context()
    ctx.plugin(web, { searchProvider: 'none', fetchProvider: 'browser' })
    ctx.plugin(session, { home })
    // The route is explicit: whatever proxy variables the machine sets, this row goes direct.
    const fork = ctx.plugin(fetchBrowser, { privateHosts: ['127.0.0.1'], artifactThreshold: 500, proxy: { noProxy: ['*'] } })
    await ctx.start()
    await ctx.lifecycle.flush()
    assert.deepEqual(ctx.web.listProviders().fetch, ['browser'])

    const s = await ctx.session.create()
    const document = await ctx.web.fetch({ url: `${site.origin}/app`, format: 'text', maxChars: 300 }, { signal: AbortSignal.timeout(60_000), session: s, callId: 'call-1' })
    assert.equal(document.providerId, 'browser')
    assert.equal(document.outcome?.readAs, 'rendered')
    assert.equal(document.metadata.title, 'Plugin page')
    assert.equal(document.nextOffset, 300)
    assert.ok(document.artifact!.path.startsWith(join(home, 'sessions', s.id)))
    // The file holds the page fenced, as the model sees it in the result.
    const written = (await readFile(document.artifact!.path, 'utf8')).split('\n')
    assert.match(written[0], /^<untrusted-content id="[0-9a-f]{12}" source="http:\/\/127\.0\.0\.1:\d+\/app">$/)
    assert.equal(written.slice(2, -2).join('\n').length, document.totalChars)
    const events = await ctx.session.read(s.id)
    const logged = events.find((event) => event.type === 'web/browser-document-fetch')
    assert.ok(logged, 'the render is in the session log')
    assert.equal(logged.visibility, 'log')

    await fork.dispose()
    assert.deepEqual(ctx.web.listProviders().fetch, [])
    await ctx.stop?.()
  })
})
