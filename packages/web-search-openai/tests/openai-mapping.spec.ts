import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadFixture, useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection } from './helpers.js'

describe('openai: mapping the Responses answer', () => {
  const server = useFixtureServer(FIXTURES)

  it('maps search calls and url_citations: sources in order, URLs exactly as returned, titles and quotable spans, answer joined from output_text parts', async () => {
    server.reply('openai-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts' }, call())
    assert.equal(result.providerId, 'openai-official')
    assert.deepEqual(result.queries, ['node lts 2026', 'node 24 end of life', 'node release schedule'])
    assert.deepEqual(result.sources, [
      { url: 'https://nodejs.org/en/about/previous-releases' },
      { url: 'https://github.com/nodejs/Release' },
      { url: 'https://endoflife.date/nodejs?utm_source=openai', title: 'Node.js | endoflife.date', snippet: 'It is supported until 30 April 2028' },
      { url: 'https://nodejs.org/en/about/previous-releases?utm_source=openai', title: 'Node.js — Node.js Releases' },
    ])
    const first =
      'Node.js 24 is the active LTS line ([nodejs.org](https://nodejs.org/en/about/previous-releases?utm_source=openai)). ' +
      'It is supported until 30 April 2028 ([endoflife.date](https://endoflife.date/nodejs?utm_source=openai)).'
    assert.equal(result.answer?.text, `${first}\n\nSee also the release schedule.`)
    assert.equal(result.answer?.modelWritten, true)
    assert.deepEqual(result.answer?.citations, [
      { url: 'https://nodejs.org/en/about/previous-releases?utm_source=openai', title: 'Node.js — Node.js Releases', start: 34, end: 113 },
      { url: 'https://endoflife.date/nodejs?utm_source=openai', title: 'Node.js | endoflife.date', start: 115, end: 150, citedText: 'It is supported until 30 April 2028' },
    ])
    assert.equal(result.answer!.text.slice(115, 150), 'It is supported until 30 April 2028')
    assert.deepEqual(result.usage, { searchRequests: 2, inputTokens: 1290, outputTokens: 240 })
    assert.deepEqual(result.warnings, [])
    await provider.close()
  })

  it('returns zero results as a success with a warning', async () => {
    server.reply('openai-zero-results')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(result.sources, [])
    assert.deepEqual(result.queries, ['qwxzv nonexistent'])
    assert.equal(result.answer?.text, 'I could not find anything about that.')
    assert.deepEqual(result.warnings, ['The web search returned no sources.'])
    await provider.close()
  })

  it('a long refusal is shown as one clean line, cut visibly with the count of what was left out', async () => {
    const fixture = loadFixture(FIXTURES, 'openai-zero-results')
    const refusal = `I cannot help with that.\u001b[31m ${'x'.repeat(400)}`
    ;(fixture.body as any).output[1].content.push({ type: 'refusal', refusal })
    server.reply(fixture)
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    const warning = result.warnings!.find((line) => line.startsWith('The model refused part of the answer: '))!
    assert.match(warning, /^The model refused part of the answer: I cannot help with that\. x+… \(\d+ more characters\)$/)
    assert.ok(!warning.includes('\u001b'))
    await provider.close()
  })

  it('a failed search call with no sources is WEB_SEARCH_FAILED (no URLs from prose)', async () => {
    server.reply('openai-search-failed')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_SEARCH_FAILED')
    assert.equal(error.details.providerCode, 'web_search_call_failed')
    assert.ok(!error.message.includes('example.invalid'))
    await provider.close()
  })

  it('results, then a failed search call: the results with a warning', async () => {
    server.reply('openai-results-then-failed')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(result.sources, [{ url: 'https://example.org/a' }])
    assert.deepEqual(result.queries, ['first', 'second'])
    assert.deepEqual(result.warnings, ['1 of 2 web search calls failed; the sources are those of the rest.'])
    await provider.close()
  })

  it('tolerates unknown item, action, part and annotation types; open_page and find_in_page URLs are not sources', async () => {
    server.reply('openai-unknown-items')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(result.sources, [{ url: 'https://example.org/future' }])
    assert.deepEqual(result.answer, { text: 'Future items exist.', citations: [], modelWritten: true })
    assert.deepEqual(result.queries, ['future items'])
    await provider.close()
  })

  it('incomplete with sources: returned with a warning naming the reason', async () => {
    server.reply('openai-incomplete')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(result.sources.map((source) => source.url), ['https://example.org/i1', 'https://example.org/i2'])
    assert.equal(result.answer?.text, 'The answer starts but')
    assert.deepEqual(result.warnings, ["OpenAI's response is incomplete (max_output_tokens); the results are partial."])
    assert.equal(server.requests.length, 1)
    await provider.close()
  })

  it('incomplete without sources: WEB_SEARCH_FAILED', async () => {
    server.reply('openai-incomplete-empty')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_SEARCH_FAILED')
    assert.equal(error.details.providerCode, 'max_output_tokens')
    await provider.close()
  })

  it("status failed: WEB_PROVIDER_ERROR quoting the response's error message", async () => {
    server.reply('openai-status-failed')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_PROVIDER_ERROR')
    assert.equal(error.details.providerCode, 'server_error')
    assert.match(error.message, /The model failed to generate a response\./)
    await provider.close()
  })

  it('no web_search_call: WEB_SEARCH_FAILED saying the model did not search, never prose URLs', async () => {
    server.reply('openai-no-search')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_SEARCH_FAILED')
    assert.equal(error.details.providerCode, 'no_search_performed')
    assert.match(error.message, /did not search/)
    await provider.close()
  })

  it('returns every source, with no silent cap', async () => {
    const sources = Array.from({ length: 60 }, (_, index) => ({ type: 'url', url: `https://example.org/${index}` }))
    server.reply({ status: 200, body: { id: 'r', object: 'response', status: 'completed', output: [{ type: 'web_search_call', id: 'ws', status: 'completed', action: { type: 'search', query: 'many', sources } }] } })
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'many' }, call())
    assert.equal(result.sources.length, 60)
    assert.equal(result.answer, undefined)
    await provider.close()
  })
})
