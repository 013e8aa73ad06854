// One table of domain-list entries and URLs, run through every place that
// compares a URL with a list: the fetch provider (its blocked list, its allowed
// list, a request's allowed list), the network policy's allowlist check on a
// real Cordis context, the list the policy hands on to the fetch provider, and
// the search filter report. They all read entries through dsh-host's
// DomainList; this keeps them from ever disagreeing again. No socket is opened:
// names resolve through a fake lookup, IP literals are trusted for the address
// step, and a request's list is checked with the call already cancelled.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { Context } from 'cordis'
import * as network from 'dsh-harness/network'
import * as tools from 'dsh-harness/tools'
import { checkDomainFilters } from 'dsh-provider-kit'
import { WebError } from 'dsh-web'
import { type LookupFunction, createHttpFetcher } from 'dsh-web-fetch-http'
import * as urlTool from './plugins/url-tool.mjs'

// [entry, URL, whether the URL is on the entry]: see docs/security.md, "Domain lists".
const TABLE: [entry: string, url: string, on: boolean][] = [
  ['example.com', 'https://example.com/', true],
  ['example.com', 'https://www.example.com/a', true],
  ['example.com', 'https://notexample.com/', false],
  ['example.com', 'https://example.com.evil.test/', false],
  // disagreed before: the fetch provider read *.example.com as example.com and its
  // subdomains, the network policy matched nothing but a host literally under "*."
  ['*.example.com', 'https://www.example.com/', true],
  ['*.example.com', 'https://a.b.example.com/', true],
  ['*.example.com', 'https://example.com/', false],
  ['.example.com', 'https://www.example.com/', true],
  ['.example.com', 'https://example.com/', false],
  // disagreed before: a Unicode entry did not block or admit its own punycode host in the fetch provider
  ['bücher.example', 'https://xn--bcher-kva.example/', true],
  ['bücher.example', 'https://www.bücher.example/', true],
  ['xn--bcher-kva.example', 'https://bücher.example/', true],
  ['EXAMPLE.com.', 'https://www.example.com./', true],
  ['example.com:8443', 'https://example.com:8443/', true],
  ['example.com:8443', 'https://example.com/', false],
  ['example.com:443', 'https://example.com/', true],
  ['example.com:443', 'http://example.com/', false],
  ['192.0.2.1', 'http://192.0.2.1/', true],
  ['192.0.2.1', 'http://192.0.2.10/', false],
  ['1.2.3.4', 'http://x.1.2.3.4.example/', false],
  ['127.0.0.1', 'http://2130706433/', true],
  ['2001:db8::1', 'http://[2001:db8:0::1]/', true],
  ['[2001:db8::1]', 'http://[2001:db8::1]/', true],
  ['192.0.2.0/24', 'http://192.0.2.77/', true],
  ['192.0.2.0/24', 'http://host.test/', false],
  ['2001:db8::/32', 'http://[2001:db8:ff::1]/', true],
  ['example.com/blog', 'https://example.com/blog/post', true],
  ['example.com/blog', 'https://example.com/blogger', false],
]

// Entries every user must refuse when its list is built.
const INVALID = ['exa mple.com', '*example.com', 'a.*.com', '*', '', 'https://user@example.com/']

/** Every name resolves to one public address; nothing is resolved for real. */
const publicLookup: LookupFunction = (_hostname, _options, callback) => queueMicrotask(() => callback(null, [{ address: '93.184.216.34', family: 4 }]))
/** IP literals pass the address step, so that only the domain lists decide. */
const TRUST_LITERALS = ['0.0.0.0/0', '::/0']

const fetchers: { close(): Promise<void> }[] = []
function fetcher(options: Parameters<typeof createHttpFetcher>[0]) {
  const created = createHttpFetcher({ lookup: publicLookup, privateHosts: TRUST_LITERALS, ...options })
  fetchers.push(created)
  return created
}

async function refusalCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    assert.ok(WebError.is(error), `not a WebError: ${error}`)
    return error.code
  }
}

/** A real tools service with the real network policy in allowlist mode and a URL-taking net_read tool. */
async function policyContext(domains: string[]) {
  const ctx = new Context()
  ctx.plugin(tools, { mode: 'native' })
  const row = ctx.plugin(network, { mode: 'allowlist', domains })
  ctx.plugin(urlTool)
  await ctx.start()
  return { ctx, row }
}

// The request's list is checked before the call's signal is looked at, so a
// cancelled call tells "refused by the list" (WEB_BLOCKED_URL) from "let
// through" (WEB_ABORTED) without any connection.
const cancelled = () => {
  const controller = new AbortController()
  controller.abort()
  return { signal: controller.signal }
}

describe('every domain-list user reads an entry the same way', () => {
  const requests = fetcher({})

  for (const [entry, url, on] of TABLE) {
    it(`${JSON.stringify(entry)} ${on ? 'covers' : 'does not cover'} ${url}, for every user`, async () => {
      const seen: Record<string, boolean> = {}

      // the fetch provider: the operator's blocked list, its allowed list, a request's allowed list
      seen['fetch blockedDomains'] = (await refusalCode(fetcher({ blockedDomains: [entry] }).vet(url))) === 'WEB_BLOCKED_URL'
      const allowedCode = await refusalCode(fetcher({ allowedDomains: [entry] }).vet(url))
      assert.ok(allowedCode === undefined || allowedCode === 'WEB_BLOCKED_URL', `allowedDomains: ${allowedCode}`)
      seen['fetch allowedDomains'] = allowedCode === undefined
      const requestCode = await refusalCode(requests.fetch({ url, allowedDomains: [entry] }, cancelled()))
      assert.ok(requestCode === 'WEB_ABORTED' || requestCode === 'WEB_BLOCKED_URL', `request allowedDomains: ${requestCode}`)
      seen['fetch request.allowedDomains'] = requestCode === 'WEB_ABORTED'

      // the network policy's pre-execute check, and the list it hands on to fetch providers
      const { ctx } = await policyContext([entry])
      try {
        const outcome = await ctx.tools.invoke('open_url', { url })
        assert.ok(!outcome.isError || outcome.error?.code === 'TOOL_REFUSED', outcome.content)
        seen['network allowlist'] = !outcome.isError
        const handedOn = ctx.network.allowedDomains()!
        seen['network allowedDomains() via fetch'] = (await refusalCode(requests.fetch({ url, allowedDomains: handedOn }, cancelled()))) === 'WEB_ABORTED'
      } finally {
        await ctx.stop()
      }

      // the search filter report
      const [allowed] = checkDomainFilters([{ url }], { allowedDomains: [entry] })
      seen['search allowed_domains'] = allowed!.outside.length === 0
      const [blocked] = checkDomainFilters([{ url }], { blockedDomains: [entry] })
      seen['search blocked_domains'] = blocked!.outside.length === 1

      assert.deepEqual(seen, Object.fromEntries(Object.keys(seen).map((user) => [user, on])))
    })
  }

  for (const entry of INVALID) {
    it(`every user refuses the entry ${JSON.stringify(entry)}, naming it`, async () => {
      const named = (message: string) => message.includes(`${JSON.stringify(entry)} is not a valid domain list entry`) && message.includes('Accepted forms:')
      for (const key of ['allowedDomains', 'blockedDomains'] as const) {
        assert.throws(() => createHttpFetcher({ [key]: [entry] }), (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && named(error.message), key)
      }
      await assert.rejects(requests.fetch({ url: 'https://example.com/', allowedDomains: [entry] }, cancelled()), (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && named(error.message))
      const { ctx, row } = await policyContext([entry])
      try {
        assert.equal(ctx.get('network'), undefined, 'the network policy does not start')
        assert.ok(named(String(row.runtime.error?.message)), String(row.runtime.error))
      } finally {
        await ctx.stop()
      }
      for (const list of ['allowedDomains', 'blockedDomains'] as const) {
        assert.throws(() => checkDomainFilters([{ url: 'https://example.com/' }], { [list]: [entry] }), (error: unknown) => WebError.is(error) && error.code === 'INVALID_ARGUMENT' && named(error.message), list)
      }
    })
  }

  after(async () => {
    await Promise.all(fetchers.map((item) => item.close()))
  })
})
