import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Context } from 'cordis'
import * as network from 'dsh-harness/network'
import * as tools from 'dsh-harness/tools'
import * as echo from '../../../tests/plugins/echo-tool.mjs'
import * as urlTool from '../../../tests/plugins/url-tool.mjs'

async function boot(config?: { mode: 'allow' | 'deny' | 'allowlist'; domains?: string[] }) {
  const ctx = new Context()
  ctx.plugin(tools, { mode: 'native' })
  if (config) ctx.plugin(network, config)
  ctx.plugin(echo, { prefix: 'echo', effects: ['net_read'] })
  ctx.plugin(urlTool)
  await ctx.start()
  return ctx
}

describe('network policy', () => {
  it('allow lets net_read tools run', async () => {
    const ctx = await boot({ mode: 'allow' })
    assert.equal((await ctx.tools.invoke('open_url', { url: 'https://example.com/' })).isError, false)
    assert.equal(ctx.network.allowedDomains(), undefined)
  })

  it('deny refuses every net_read tool with a reason the model sees', async () => {
    const ctx = await boot({ mode: 'deny' })
    for (const [tool, input] of [['open_url', { url: 'https://example.com/' }], ['echo', { text: 'x' }]] as const) {
      const outcome = await ctx.tools.invoke(tool, input)
      assert.equal(outcome.error?.code, 'TOOL_REFUSED', tool)
      assert.match(outcome.content, /network policy mode: deny/)
    }
  })

  it('allowlist checks the URL against the domains and their subdomains, and refuses calls without a URL', async () => {
    const ctx = await boot({ mode: 'allowlist', domains: ['Example.COM', 'docs.test.'] })
    const allowed = await ctx.tools.invoke('open_url', { url: 'https://www.example.com/a' })
    assert.equal(allowed.isError, false)
    assert.deepEqual((allowed.structured as any).allowedDomains, ['example.com', 'docs.test'])
    assert.equal((await ctx.tools.invoke('open_url', { url: 'https://docs.test/x' })).isError, false)
    const elsewhere = await ctx.tools.invoke('open_url', { url: 'https://example.com.evil.test/' })
    assert.match(elsewhere.content, /example\.com\.evil\.test is not on this network policy's allowlist \(example\.com, docs\.test\)/)
    const lookalike = await ctx.tools.invoke('open_url', { url: 'https://notexample.com/' })
    assert.equal(lookalike.error?.code, 'TOOL_REFUSED')
    const noUrl = await ctx.tools.invoke('echo', { text: 'x' })
    assert.match(noUrl.content, /echo does not say where its requests go/)
  })

  it('allowlist entries mean what every domain list means: IDN, *.name, ports and paths', async () => {
    const ctx = await boot({ mode: 'allowlist', domains: ['Bücher.test', '*.wild.test', 'api.test:8443', 'docs.test/guide'] })
    assert.deepEqual(ctx.network.allowedDomains(), ['xn--bcher-kva.test', '*.wild.test', 'api.test:8443', 'docs.test/guide'])
    const runs = async (url: string) => (await ctx.tools.invoke('open_url', { url })).isError === false
    assert.equal(await runs('https://www.xn--bcher-kva.test/'), true)
    assert.equal(await runs('https://shop.wild.test/'), true)
    assert.equal(await runs('https://wild.test/'), false, '*.wild.test is subdomains only')
    assert.equal(await runs('https://api.test:8443/v1'), true)
    assert.equal(await runs('https://api.test/v1'), false)
    assert.equal(await runs('https://docs.test/guide/intro'), true)
    const outside = await ctx.tools.invoke('open_url', { url: 'https://docs.test/blog?x=1' })
    assert.match(outside.content, /https:\/\/docs\.test\/blog is not on this network policy's allowlist \(xn--bcher-kva\.test, \*\.wild\.test, api\.test:8443, docs\.test\/guide\)/)
    const ftp = await ctx.tools.invoke('open_url', { url: 'ftp://docs.test/guide' })
    assert.match(ftp.content, /open_url was given a ftp URL, and this network policy's allowlist admits only http and https URLs/)
  })

  it('a domains entry that is not an accepted form fails the row at start, naming the entry', async () => {
    const ctx = new Context()
    ctx.plugin(tools, { mode: 'native' })
    const row = ctx.plugin(network, { mode: 'allowlist', domains: ['ok.test', 'a.*.test'] })
    await ctx.start()
    assert.equal(ctx.get('network'), undefined)
    assert.match(String(row.runtime.error?.message), /^domains\[1\] "a\.\*\.test" is not a valid domain list entry: .*Accepted forms: example\.com/)
  })

  it('leaves tools without the net_read effect alone', async () => {
    const ctx = new Context()
    ctx.plugin(tools, { mode: 'native' })
    ctx.plugin(network, { mode: 'deny' })
    ctx.plugin(echo, { prefix: 'echo', effects: [] })
    await ctx.start()
    assert.equal((await ctx.tools.invoke('echo', { text: 'x' })).isError, false)
  })
})
