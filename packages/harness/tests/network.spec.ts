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
    assert.match(noUrl.content, /echo has no URL to check/)
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
