// PTC fan-out: `Promise.all` over many `tools.web_fetch` calls inside one
// run_code run, through the real tools service, the real fetch provider and
// a loopback site. The run's cap on calls at once makes the extra calls wait
// their turn; it never fails the run.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as session from 'dsh-harness/session'
import * as tools from 'dsh-harness/tools'
import * as runCode from 'dsh-run-code'
import * as toolWeb from 'dsh-tool-web'
import * as web from 'dsh-web'
import * as fetchHttp from 'dsh-web-fetch-http'

const CAP = 8

/**
 * A site that holds every page until as many requests are open as can be:
 * the cap, or all that are left of the expected total. So when the run
 * queues correctly the site sees exactly the cap at once (never more), and
 * every request is answered without a clock deciding anything.
 */
class HoldingSite {
  readonly server: Server
  open = 0
  mostAtOnce = 0
  private expected = 0
  private answered = 0
  private held: { request: IncomingMessage; response: ServerResponse }[] = []

  constructor() {
    this.server = createServer((request, response) => {
      this.open++
      this.mostAtOnce = Math.max(this.mostAtOnce, this.open)
      this.held.push({ request, response })
      this.release()
    })
  }

  expect(total: number): void {
    this.expected = total
    this.answered = 0
    this.mostAtOnce = 0
  }

  private release(): void {
    if (this.held.length < Math.min(CAP, this.expected - this.answered)) return
    for (const { request, response } of this.held.splice(0)) {
      this.open--
      this.answered++
      const page = request.url!.split("/").pop()
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(`<!doctype html><html><head><title>Page ${page}</title></head><body><article><h1>Page ${page}</h1><p>The text of page ${page} is here and nowhere else.</p></article></body></html>`)
    }
  }
}

describe('PTC fan-out over web_fetch', () => {
  const site = new HoldingSite()
  let port: number
  let home: string
  let ctx: Context

  before(async () => {
    await new Promise<void>((resolve) => site.server.listen(0, '127.0.0.1', resolve))
    port = (site.server.address() as AddressInfo).port
    home = await mkdtemp(join(tmpdir(), 'dsh-fan-out-'))
    ctx = new Context()
    ctx.plugin(session, { home })
    ctx.plugin(tools, { mode: 'ptc' })
    ctx.plugin(runCode, { timeoutMs: 60_000 })
    ctx.plugin(web, { searchProvider: 'none', fetchProvider: 'http' })
    // One site name per page: the fetcher opens at most a few connections per site (PINNED_CONNECTIONS), which is not what this tests.
    const hosts = Array.from({ length: 30 }, (_, index) => `page-${index}.test`)
    // The direct route, whatever proxy the machine's environment names.
    ctx.plugin(fetchHttp, { privateHosts: ['127.0.0.1', ...hosts], resolve: Object.fromEntries(hosts.map((host) => [host, '127.0.0.1'])), proxy: { noProxy: ['*'] } })
    ctx.plugin(toolWeb, { search: false, fetch: true })
    await ctx.start()
    await ctx.lifecycle.flush()
  })

  after(async () => {
    await ctx?.stop()
    site.server.closeAllConnections()
    await new Promise((resolve) => site.server.close(resolve))
    await rm(home, { recursive: true, force: true })
  })

  for (const count of [12, 30]) {
    it(`Promise.all over ${count} URLs returns every page; the site never sees more than ${CAP} requests at once`, async () => {
      site.expect(count)
      const urls = Array.from({ length: count }, (_, index) => `http://page-${index}.test:${port}/run-of-${count}/${index}`)
      const s = await ctx.session.create()
      const code = `const urls = ${JSON.stringify(urls)}
const pages = await Promise.all(urls.map((url) => tools.web_fetch({ url })))
return pages.map((page) => page.text)`
      const outcome = await ctx.tools.invoke('run_code', { code }, { session: s })
      assert.equal(outcome.isError, false, outcome.content.slice(0, 2000))
      const structured = outcome.structured as any
      assert.equal(structured.result.length, count)
      structured.result.forEach((text: string, index: number) => assert.match(text, new RegExp(`The text of page ${index} is here`)))
      assert.equal(site.mostAtOnce, CAP, `the site saw ${site.mostAtOnce} at once`)
      assert.deepEqual(structured.calls.map((call: any) => call.outcome), Array(count).fill('ok'))
      const waited = structured.calls.filter((call: any) => call.startedAt > call.queuedAt)
      assert.ok(waited.length >= count - CAP, `${waited.length} calls waited for a slot`)
    })
  }
})
