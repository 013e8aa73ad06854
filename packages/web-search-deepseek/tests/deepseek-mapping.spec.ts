import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { useFixtureServer } from '../../../tests/support/fixture-server.js'
import { call, FIXTURES, providerFor, rejection } from './helpers.js'

describe('deepseek: mapping the Messages answer', () => {
  const server = useFixtureServer(FIXTURES)

  it('maps a multi-search answer: every result in order, unique by URL, snippets from citations, page_age, queries, usage', async () => {
    server.reply('deepseek-multi-result')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'node lts' }, call())
    assert.equal(result.providerId, 'deepseek-official')
    assert.equal(result.query, 'node lts')
    assert.deepEqual(result.queries, ['node.js LTS release 2026', 'node 24 LTS end of life'])
    assert.deepEqual(result.sources, [
      { url: 'https://nodejs.org/en/about/previous-releases', title: 'Node.js Releases', snippet: 'Node.js 24 Krypton Active LTS', publishedDate: '2026-10-28' },
      { url: 'https://github.com/nodejs/Release', title: 'nodejs/Release: Node.js Release Working Group', publishedDate: 'March 3, 2026' },
      { url: 'https://endoflife.date/nodejs', title: 'Node.js | endoflife.date', snippet: '24 (LTS) ... Ends in 1 year and 5 months (30 Apr 2028)' },
      { url: 'https://nodejs.org/en/blog/release/v24.11.0', title: 'Node.js v24.11.0 (LTS)', publishedDate: '2026-10-28' },
    ])
    assert.ok(!result.sources.some((source) => source.url.includes('example.invalid')), 'no URL is taken from prose')
    const text = 'The active LTS line is Node.js 24, supported until April 2028. See https://example.invalid/prose-url for more.'
    assert.deepEqual(result.answer, {
      text,
      modelWritten: true,
      citations: [
        { url: 'https://nodejs.org/en/about/previous-releases', title: 'Node.js Releases', citedText: 'Node.js 24 Krypton Active LTS', start: 0, end: 33 },
        { url: 'https://endoflife.date/nodejs', title: 'Node.js | endoflife.date', citedText: '24 (LTS) ... Ends in 1 year and 5 months (30 Apr 2028)', start: 33, end: 62 },
      ],
    })
    assert.equal(text.slice(0, 33), 'The active LTS line is Node.js 24')
    assert.equal(text.slice(33, 62), ', supported until April 2028.')
    assert.deepEqual(result.usage, { searchRequests: 2, inputTokens: 4321, outputTokens: 210 })
    assert.deepEqual(result.warnings, [])
    assert.deepEqual(result.filters, [])
    await provider.close()
  })

  it('returns zero results as a success with a warning', async () => {
    server.reply('deepseek-zero-results')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'qwxzv' }, call())
    assert.deepEqual(result.sources, [])
    assert.deepEqual(result.queries, ['qwxzv nonexistent term'])
    assert.equal(result.answer?.text, 'I found no results for that query.')
    assert.deepEqual(result.warnings, ['The web search returned no results.'])
    await provider.close()
  })

  it('turns a tool error block with no results into WEB_SEARCH_FAILED carrying the error_code', async () => {
    server.reply('deepseek-tool-error')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'anything' }, call()))
    assert.equal(error.code, 'WEB_SEARCH_FAILED')
    assert.equal(error.details.providerCode, 'max_uses_exceeded')
    assert.match(error.message, /max_uses_exceeded/)
    assert.equal(error.retryable, false)
    await provider.close()
  })

  it('returns results followed by an error block with a warning naming the code', async () => {
    server.reply('deepseek-results-then-error')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(result.sources, [{ url: 'https://example.org/a', title: 'Result A', snippet: 'A says so', publishedDate: '2026-01-02' }])
    assert.deepEqual(result.queries, ['first query', 'second query'])
    assert.equal(result.warnings.length, 1)
    assert.match(result.warnings[0]!, /too_many_requests/)
    assert.match(result.warnings[0]!, /after earlier ones returned results/)
    await provider.close()
  })

  it('tolerates unknown block, citation and field types (and skips results without a URL)', async () => {
    server.reply('deepseek-unknown-blocks')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(result.sources, [{ url: 'https://example.org/future', title: 'Future' }])
    assert.deepEqual(result.queries, ['future blocks'], 'only web_search tool uses are queries')
    assert.deepEqual(result.answer, { text: 'Future blocks exist.', citations: [], modelWritten: true })
    assert.ok(!JSON.stringify(result).includes('Let me search'), 'thinking never reaches the result')
    await provider.close()
  })

  it('keeps the results of a pause_turn answer with a warning, in one request', async () => {
    server.reply('deepseek-pause-turn')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'long research' }, call())
    assert.equal(server.requests.length, 1, 'no continuation request')
    assert.deepEqual(result.sources.map((source) => source.url), ['https://example.org/p1', 'https://example.org/p2'])
    assert.equal(result.answer, undefined)
    assert.equal(result.warnings.length, 1)
    assert.match(result.warnings[0]!, /pause_turn/)
    await provider.close()
  })

  it('keeps the results of a max_tokens answer with a warning', async () => {
    server.reply('deepseek-max-tokens')
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'q' }, call())
    assert.deepEqual(result.sources.map((source) => source.url), ['https://example.org/m1'])
    assert.equal(result.answer?.text, 'The answer starts but')
    assert.match(result.warnings.join('\n'), /max_tokens/)
    await provider.close()
  })

  it('turns an answer without any search block into WEB_SEARCH_FAILED, never sources from prose', async () => {
    server.reply('deepseek-no-search')
    const { provider } = providerFor(server)
    const error = await rejection(provider.search({ query: 'q' }, call()))
    assert.equal(error.code, 'WEB_SEARCH_FAILED')
    assert.equal(error.details.providerCode, 'no_search_performed')
    assert.match(error.message, /did not search/)
    assert.ok(!error.message.includes('nodejs.org'))
    await provider.close()
  })

  it('returns every source, with no silent cap', async () => {
    const content = [
      { type: 'server_tool_use', id: 's1', name: 'web_search', input: { query: 'many' } },
      {
        type: 'web_search_tool_result',
        tool_use_id: 's1',
        content: Array.from({ length: 40 }, (_, index) => ({ type: 'web_search_result', url: `https://example.org/${index}`, title: `R${index}`, encrypted_content: 'e', page_age: null })),
      },
    ]
    server.reply({ status: 200, body: { id: 'm', type: 'message', role: 'assistant', content, stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } } })
    const { provider } = providerFor(server)
    const result = await provider.search({ query: 'many' }, call())
    assert.equal(result.sources.length, 40)
    assert.equal(result.sources[39]!.url, 'https://example.org/39')
    await provider.close()
  })
})
