// The browser's life: found or not (said, never a silent fallback), the
// sandbox state detected before any launch, one browser for every call, and
// a new one after it died.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { WebError } from 'dsh-web'
import { detectSandbox } from '../src/chromium-process.js'
import { selfTestContainment } from '../src/self-test.js'
import { chromiumMissing, listen, type Listener, testFetcher } from './helpers.js'

describe('the browser process', () => {
  it('as root the sandbox is off, with the reason dsh doctor shows', () => {
    const state = detectSandbox(0)
    assert.equal(state.enabled, false)
    assert.match(state.reason ?? '', /runs as root.*unprivileged user/)
  })

  it('a Chromium that is not there: the provider says it is unavailable and why, and a fetch is WEB_PROVIDER_UNAVAILABLE naming the fix', async () => {
    const fetcher = testFetcher({ executablePath: '/nonexistent/chromium' })
    try {
      assert.equal(fetcher.available(), false)
      assert.match(fetcher.unavailableReason?.() ?? '', /No Chromium at \/nonexistent\/chromium: apt-get install chromium/)
      await assert.rejects(fetcher.fetch({ url: 'http://127.0.0.1:9/' }), (error: unknown) => WebError.is(error) && error.code === 'WEB_PROVIDER_UNAVAILABLE' && /executablePath/.test(error.message))
    } finally {
      await fetcher.close()
    }
  })

  it('a page URL the policy refuses fails at once with its code, and no browser is started for it', async () => {
    const fetcher = testFetcher({ privateHosts: [] })
    try {
      await assert.rejects(fetcher.fetch({ url: 'http://127.0.0.1:9/' }), (error: unknown) => WebError.is(error) && error.code === 'WEB_BLOCKED_ADDRESS' && /127\.0\.0\.1/.test(error.message))
      await assert.rejects(fetcher.fetch({ url: 'http://localhost:9/' }), (error: unknown) => WebError.is(error) && error.code === 'WEB_BLOCKED_ADDRESS')
      await assert.rejects(fetcher.fetch({ url: 'file:///etc/passwd' }), (error: unknown) => WebError.is(error) && error.code === 'WEB_BLOCKED_URL')
      assert.equal(fetcher.status().launches, 0)
    } finally {
      await fetcher.close()
    }
  })

  describe('with Debian\'s chromium', { skip: chromiumMissing }, () => {
    let site: Listener
    before(async () => {
      site = await listen('127.0.0.1', (request, response) => {
        if (request.url === '/file.bin') return void response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="file.bin"' }).end(Buffer.alloc(1024, 1))
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><main><h1>Alive</h1><p>The browser answered this page.</p></main></body></html>')
      })
    })
    after(async () => site?.close())

    it('one browser serves every call; one killed from outside is replaced at the next call, its profile removed', async () => {
      const fetcher = testFetcher()
      try {
        await fetcher.fetch({ url: `${site.origin}/one` })
        await fetcher.fetch({ url: `${site.origin}/two` })
        const first = fetcher.status()
        assert.equal(first.launches, 1)
        assert.equal(first.running, true)
        assert.match(first.version ?? '', /Chrome\/\d+/)
        assert.deepEqual(first.sandbox, detectSandbox())
        const profile = `/proc/${first.pid}/cmdline`
        const userDataDir = /--user-data-dir=([^\0]+)/.exec(await import('node:fs/promises').then((fs) => fs.readFile(profile, 'utf8')))?.[1]
        assert.ok(userDataDir && existsSync(userDataDir), 'a profile folder of its own')
        process.kill(first.pid!, 'SIGKILL')
        const result = await fetcher.fetch({ url: `${site.origin}/three` })
        assert.match(result.text, /The browser answered this page/)
        const second = fetcher.status()
        assert.equal(second.launches, 2)
        assert.notEqual(second.pid, first.pid)
        assert.equal(existsSync(userDataDir), false, 'the dead browser\'s profile is removed')
      } finally {
        await fetcher.close()
      }
    })

    it('the self-test dsh doctor runs: the page ran, nothing reached the untrusted listener or the UDP port, the refusals are recorded', async () => {
      const report = await selfTestContainment()
      assert.equal(report.contained, true, JSON.stringify(report.checks))
      assert.deepEqual(report.checks.map((check) => check.name), ['the page ran', 'no TCP to an untrusted loopback address', 'no UDP (WebRTC STUN)', 'refusals recorded'])
      assert.match(report.version ?? '', /Chrome\/\d+/)
    })

    it('a URL that answers with a download is refused as one (WEB_UNSUPPORTED_CONTENT_TYPE), and no file is saved', async () => {
      const fetcher = testFetcher()
      try {
        await assert.rejects(fetcher.fetch({ url: `${site.origin}/file.bin` }), (error: unknown) => WebError.is(error) && error.code === 'WEB_UNSUPPORTED_CONTENT_TYPE' && /is a download/.test(error.message))
        const { readdirSync } = await import('node:fs')
        assert.ok(!readdirSync(process.cwd()).includes('file.bin'), 'not saved in the working folder')
        const home = process.env.HOME
        if (home && existsSync(`${home}/Downloads`)) assert.ok(!readdirSync(`${home}/Downloads`).includes('file.bin'), 'not saved in ~/Downloads')
      } finally {
        await fetcher.close()
      }
    })
  })
})
