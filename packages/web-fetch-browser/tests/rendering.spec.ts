// Pages whose text their scripts write, rendered by the real Chromium on
// loopback servers: the text comes back through web-fetch-http's readers,
// marked as rendered.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type BrowserFetcher } from '../src/browser-fetcher.js'
import { answerWebSocket, chromiumMissing, listen, type Listener, testFetcher } from './helpers.js'

const PAGES: Record<string, string> = {
  '/writes-dom': `<html><head><title>Shell</title></head><body><div id="root"></div><script>
    document.getElementById('root').innerHTML = '<main><h1>Written by script</h1><p>This paragraph was written into the DOM by the page script, not by the server.</p></main>'
  </script></body></html>`,
  '/fetches-json': `<html><head><title>Docs</title></head><body><div id="root">Loading…</div><script>
    fetch('/content.json').then((r) => r.json()).then((data) => {
      document.getElementById('root').innerHTML = '<main><h1>' + data.title + '</h1><p>' + data.body + '</p></main>'
    })
  </script></body></html>`,
  '/socket': `<html><head><title>Socket</title></head><body><main><h1>Live</h1><p id="said">no message yet</p></main><script>
    const socket = new WebSocket('ws://' + location.host + '/live')
    socket.onmessage = (event) => { document.getElementById('said').textContent = 'The socket said: ' + event.data; socket.close() }
  </script></body></html>`,
  '/framed': `<html><head><title>Framed</title></head><body><main><h1>A page with a frame of another site</h1><p>The frame is a trusted site of its own, rendered in a process of its own.</p></main><iframe src="FRAME"></iframe></body></html>`,
  '/permissions': `<html><head><title>Permissions</title></head><body><main><h1>Permissions</h1><p id="states">not asked</p></main><script>
    Promise.all(['geolocation', 'notifications', 'camera', 'microphone'].map((name) => navigator.permissions.query({ name }).then((state) => name + ' ' + state.state, () => name + ' unknown')))
      .then((states) => { document.getElementById('states').textContent = 'Permission states: ' + states.join(', ') })
  </script></body></html>`,
  '/writes-a-wall': `<html><head><title>Loading</title></head><body><div id="root"></div><script>
    document.title = 'Just a moment...'
    document.getElementById('root').innerHTML = '<div class="cf-browser-verification"><h1>Checking your browser before accessing the site</h1><p>This process is automatic.</p></div>'
  </script></body></html>`,
  '/writes-sections': `<html><head><title>Sections</title></head><body><div id="root"></div><script>
    document.getElementById('root').innerHTML = '<main><h1>Written guide</h1><h2>Setup</h2><p>The script wrote this setup section, long enough to be read as the content of the page.</p><h2>Limits</h2><p>The request limit is ten per second, and the script wrote it too.</p></main>'
  </script></body></html>`,
  '/after-timer': `<html><head><title>Later</title></head><body><div id="root"></div><script>
    setTimeout(() => { document.getElementById('root').innerHTML = '<main><h1>Rendered after a timer</h1><p>The page waited a little before it showed this text to its reader.</p></main>' }, 300)
  </script></body></html>`,
}

describe('rendered pages', { skip: chromiumMissing }, () => {
  let site: Listener
  let otherSite: Listener
  let fetcher: BrowserFetcher

  before(async () => {
    site = await listen('127.0.0.1', (request, response) => {
      if (request.url === '/content.json') return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ title: 'Loaded as JSON', body: 'The documentation text arrived as JSON from the same origin and was rendered.' }))
      const page = PAGES[request.url ?? '']?.replace('FRAME', `${otherSite.origin}/frame`)
      if (page) return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
      response.writeHead(404).end()
    }, answerWebSocket('hello through a vetted tunnel'))
    otherSite = await listen('127.0.0.4', (request, response) => {
      if (request.url === '/frame') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><img src="/in-frame.gif"></body></html>')
      response.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'))
    })
    fetcher = testFetcher({ privateHosts: ['127.0.0.1', '127.0.0.4'] })
  })
  after(async () => {
    await fetcher?.close()
    await site?.close()
    await otherSite?.close()
  })

  it('a script that writes the DOM: its text comes back, read as rendered', async () => {
    const result = await fetcher.fetch({ url: `${site.origin}/writes-dom` })
    assert.match(result.text, /Written by script/)
    assert.match(result.text, /written into the DOM by the page script/)
    assert.equal(result.providerId, 'browser')
    assert.deepEqual(result.outcome && { kind: result.outcome.kind, readAs: result.outcome.readAs, renderedBy: result.outcome.renderedBy }, { kind: 'ok', readAs: 'rendered', renderedBy: 'browser' })
    assert.equal(result.status, 200)
    // Nothing was refused: neither of the page's nor Chromium's own (its search engine's services are off).
    assert.equal(result.provenance.refused?.count, 0, JSON.stringify(result.provenance.refused))
  })

  it('a page that fetches JSON from its own origin: the JSON text is rendered', async () => {
    const result = await fetcher.fetch({ url: `${site.origin}/fetches-json` })
    assert.match(result.text, /Loaded as JSON/)
    assert.match(result.text, /arrived as JSON from the same origin/)
    assert.ok(site.hits.includes('GET /content.json'))
    assert.equal(result.outcome?.readAs, 'rendered')
  })

  it('a page whose script writes a bot wall: typed a challenge by the same judge as a static page, read as rendered', async () => {
    const result = await fetcher.fetch({ url: `${site.origin}/writes-a-wall` })
    assert.equal(result.outcome?.kind, 'challenge', JSON.stringify(result.outcome))
    assert.equal(result.outcome?.readAs, 'rendered')
    assert.match(result.outcome?.renderNote ?? '', /still challenge once its scripts ran/)
  })

  it('a page that renders after a timer: the text it shows later comes back', async () => {
    const result = await fetcher.fetch({ url: `${site.origin}/after-timer`, format: 'text' })
    assert.match(result.text, /Rendered after a timer/)
    assert.equal(result.outcome?.kind, 'ok')
  })

  it('a WebSocket to its own origin goes through a vetted tunnel (CONNECT, direct route) and its message is rendered', async () => {
    const result = await fetcher.fetch({ url: `${site.origin}/socket` })
    assert.match(result.text, /The socket said: hello through a vetted tunnel/)
    assert.ok(site.hits.includes('UPGRADE /live'))
    assert.equal(result.provenance.route, 'direct')
  })

  it('the rendered text is paged like a static page, the next part from the same snapshot (no second render)', async () => {
    const requestsBefore = site.hits.filter((hit) => hit === 'GET /fetches-json').length
    const first = await fetcher.fetch({ url: `${site.origin}/fetches-json`, format: 'text', maxChars: 20, extract: 'full' })
    assert.equal(first.truncated, true)
    assert.equal(first.nextOffset, 20)
    assert.match(first.truncatedReason ?? '', /call again with offset 20/)
    const second = await fetcher.fetch({ url: `${site.origin}/fetches-json`, format: 'text', maxChars: 20, offset: 20, extract: 'full' })
    assert.equal(second.offset, 20)
    assert.equal(second.provenance.cacheHit, true)
    assert.equal(site.hits.filter((hit) => hit === 'GET /fetches-json').length, requestsBefore + 1, 'rendered once')
    const whole = await fetcher.fetch({ url: `${site.origin}/fetches-json`, format: 'text', extract: 'full' })
    assert.equal(first.text + second.text, whole.text.slice(0, 40))
  })

  it('find and query read the rendered snapshot: a match offset reads back on it, with no second render', async () => {
    const url = `${site.origin}/writes-sections`
    const found = await fetcher.fetch({ url, find: 'THE SCRIPT WROTE' })
    assert.equal(found.text, '')
    assert.deepEqual(found.find?.matches.map((match) => [match.text, match.headings]), [['The script wrote', ['Written guide', 'Setup']], ['the script wrote', ['Written guide', 'Limits']]])
    const read = await fetcher.fetch({ url, offset: found.find!.matches[1].offset, maxChars: 16 })
    assert.equal(read.text, 'the script wrote')
    const ranked = await fetcher.fetch({ url, query: 'request limit' })
    assert.match(ranked.query!.passages[0].text, /^The request limit is ten per second/)
    assert.deepEqual(ranked.query!.outline.map((heading) => heading.title), ['Written guide', 'Setup', 'Limits'])
    assert.equal(site.hits.filter((hit) => hit === 'GET /writes-sections').length, 1, 'rendered once')
  })

  it('a frame of another trusted site (its own renderer process) loads through the same proxy, its credentials included', async () => {
    const result = await fetcher.fetch({ url: `${site.origin}/framed` })
    assert.match(result.text, /rendered in a process of its own/)
    assert.deepEqual(otherSite.hits, ['GET /frame', 'GET /in-frame.gif'])
    assert.equal(result.provenance.refused?.count, 0, JSON.stringify(result.provenance.refused))
  })

  it('no permission is granted to the page: geolocation, notifications, camera and microphone are denied', async () => {
    const result = await fetcher.fetch({ url: `${site.origin}/permissions`, format: 'text' })
    assert.match(result.text, /Permission states: geolocation denied, notifications denied, camera denied, microphone denied/)
  })
})
