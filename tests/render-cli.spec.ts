// `dsh fetch` of a page its scripts write, with Debian's Chromium (the render
// preset) and without it: rendered and said so, or typed needs_js, never an
// empty success. The page and its JSON are on 127.0.0.1, trusted with the
// operator's --private-host (which reaches the browser row as well).
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { dsh, tempHome } from './helpers.js'

const APP = `<!doctype html><html><head><title>App</title><script src="/bundle-a.js"></script><script src="/bundle-b.js"></script><script src="/bundle-c.js"></script></head>
<body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript><script>
fetch('/content.json').then((r) => r.json()).then((data) => {
  document.getElementById('root').innerHTML = '<main><h1>' + data.title + '</h1>' + data.paragraphs.map((p) => '<p>' + p + '</p>').join('') + '</main>'
})
</script></body></html>`

const CONTENT = {
  title: 'Written by the page script',
  paragraphs: Array.from({ length: 6 }, (_, index) => `Paragraph ${index + 1} arrived as JSON from the same origin and the page script wrote it into the document for the reader.`),
}

const chromiumMissing = existsSync('/usr/bin/chromium') ? false : 'Debian chromium is not installed (scripts/test-prerequisites.mjs installs it)'

describe('dsh fetch of a script-rendered page', () => {
  let server: Server
  let origin: string
  let home: string
  before(async () => {
    server = createServer((request, response) => {
      if (request.url === '/app') return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(APP)
      if (request.url === '/content.json') return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(CONTENT))
      if (request.url?.startsWith('/bundle-')) return void response.writeHead(200, { 'content-type': 'text/javascript' }).end('/* a bundle */')
      response.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    home = await tempHome()
  })
  after(async () => {
    await new Promise((resolve) => server?.close(resolve))
    await rm(home, { recursive: true, force: true })
  })

  it('without rendering: typed needs_js, saying rendering is off, exit 1', async () => {
    const result = await dsh(['fetch', `${origin}/app`, '--preset', 'standard', '--private-host', '127.0.0.1'], { home })
    assert.equal(result.code, 1, result.stderr)
    assert.match(result.stderr, /WEB_NO_TEXT_CONTENT/)
    assert.match(result.stdout + result.stderr, /outcome needs_js/)
    assert.match(result.stdout + result.stderr, /rendering is off on the web row \(render: never\)/)
    assert.doesNotMatch(result.stdout, /Written by the page script/)
  })

  it('with the render preset: the text the script wrote, said to be rendered and why', { skip: chromiumMissing }, async () => {
    const result = await dsh(['fetch', `${origin}/app`, '--preset', 'render', '--private-host', '127.0.0.1'], { home })
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /Written by the page script/)
    assert.match(result.stdout, /Paragraph 6 arrived as JSON from the same origin/)
    assert.match(result.stdout, /Rendered: its scripts ran before it was read; rendered by browser because http read the page as needs_js/)
  })
})
